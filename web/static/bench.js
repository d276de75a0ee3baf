// Times the core's shuffle prover and verifier in this browser (BENCHMARKS.md, "The browser
// page"); tests/browser.rs reads the result beside the native figures of the same run.
import init, { ShuffleBench } from "./pkg/tolerance_web.js";

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  const q = new URLSearchParams(location.search);
  const size = Number(q.get("size") || 52);
  const runs = Number(q.get("runs") || 10);
  await init();
  const bench = new ShuffleBench(size);
  // Warm-up: V8 first runs WebAssembly through its baseline compiler and optimises hot
  // functions in the background; measured runs start once that has had time to happen.
  for (let i = 0; i < 5; i++) {
    bench.prove();
    bench.verify();
  }
  await new Promise((r) => setTimeout(r, 500));
  const prove = [];
  const verify = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    bench.prove();
    prove.push(performance.now() - t);
    t = performance.now();
    bench.verify();
    verify.push(performance.now() - t);
  }
  const result = { size, runs, prove_ms: median(prove), verify_ms: median(verify) };
  document.getElementById("result").textContent = JSON.stringify(result);
  document.body.dataset.done = "yes";
}

main().catch((e) => {
  document.getElementById("result").textContent = `failed: ${e.message || e}`;
  document.body.dataset.done = "failed";
});
