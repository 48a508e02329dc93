package dist

import (
	"context"
	"testing"
	"time"
)

func TestReplicasDebug(t *testing.T) {
	urls := startJSCluster(t)
	nc, err := Connect(urls[0], "dbg")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := newJS(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	start := time.Now()
	_, _, err = buckets(ctx, js, 0)
	t.Logf("buckets R0: %v %v", time.Since(start), err)
	start = time.Now()
	runs, claims, err := buckets(ctx, js, 3)
	t.Logf("buckets: %v %v", time.Since(start), err)
	if err != nil {
		t.Fatal(err)
	}
	_ = runs
	for i := 0; i < 40; i++ {
		st, err := js.Stream(ctx, "KV_rdmasim-claims")
		if err != nil {
			t.Logf("%v stream: %v", time.Since(start), err)
		} else {
			ci := st.CachedInfo()
			t.Logf("%v R%d cluster %+v", time.Since(start), ci.Config.Replicas, ci.Cluster)
			if ci.Cluster != nil {
				for _, r := range ci.Cluster.Replicas {
					t.Logf("   replica %+v", *r)
				}
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	start = time.Now()
	rev, err := claims.Create(ctx, "coord.x", []byte("x"))
	t.Logf("create: %v rev %d %v", time.Since(start), rev, err)
	st, err := claims.Status(ctx)
	t.Logf("status %+v %v", st, err)
	start = time.Now()
	rev, err = runs.Put(ctx, "x", []byte("x"))
	t.Logf("runs put: %v rev %d %v", time.Since(start), rev, err)
}
