module rdmasim

go 1.26.8

require github.com/dgryski/go-farm v0.0.0-20240924180020-3414d57e47da

require github.com/spf13/pflag v1.1.0 // indirect
