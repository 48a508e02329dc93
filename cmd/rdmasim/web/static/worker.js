// The playground's Web Worker: it loads rdmasim compiled to WebAssembly
// (cmd/rdmasim-wasm), whose Go main installs the message handler and posts
// {type: "ready"}; searches run here, so the page stays responsive.
importScripts("wasm_exec.js");
const go = new Go();
WebAssembly.instantiateStreaming(fetch("rdmasim.wasm"), go.importObject)
  .then((r) => go.run(r.instance))
  .catch((err) => postMessage({ type: "failed", message: String(err) }));
