// The seat's shuffle proofs and proofs of work, made off the page's thread: a copy of the same
// core runs each job the seat hands out (a shuffle's secret share comes with it, and goes
// nowhere else) and answers with the deck and proof, or the nonce, which the seat checks before
// publishing them.
import init, { mine, shuffle_job } from "./pkg/tolerance_web.js";

const ready = init().then(
  () => postMessage({ ready: true }),
  (e) => postMessage({ broken: String(e && e.message ? e.message : e) }),
);

onmessage = async (ev) => {
  await ready;
  try {
    const job = ev.data;
    postMessage(job.startsWith('{"mine"') ? { mined: mine(job) } : { done: shuffle_job(job) });
  } catch (e) {
    postMessage({ failed: String(e && e.message ? e.message : e) });
  }
};
