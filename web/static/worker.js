// The seat's shuffle proofs, made off the page's thread: a copy of the same core runs each job
// the seat hands out (its deck's secret share comes with it, and goes nowhere else) and answers
// with the deck and proof, which the seat checks before publishing them.
import init, { shuffle_job } from "./pkg/tolerance_web.js";

const ready = init().then(
  () => postMessage({ ready: true }),
  (e) => postMessage({ broken: String(e && e.message ? e.message : e) }),
);

onmessage = async (ev) => {
  await ready;
  try {
    postMessage({ done: shuffle_job(ev.data) });
  } catch (e) {
    postMessage({ failed: String(e && e.message ? e.message : e) });
  }
};
