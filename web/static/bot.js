// A bot seat, in a worker of its own: its own copy of the verified core, its own key (made here;
// the person's key never comes here) and its own connections to the relays. It asks for a seat at
// the table a link names, as a person in the page does, then plays it with the game's bot: the
// same session every seat runs checks every event it sees. It tells the page how it goes:
// `{state, words}` messages, `state` being the joining step, "playing", "over" or "failed".
//
// Like a person's seat it keeps its record (store.js, under its own key) before its events go
// out, so that after a reload the page starts it again with the same key (which the page keeps
// sealed by the table key) and it takes its seat back. It drops the record once the relays took
// its last events, and says so (`{records: "dropped"}`).
import init, * as core from "./pkg/tolerance_web.js";
import { SeatPool, followTable, lingerThenClose, openSeat, seatRound } from "./relays.js";
import * as store from "./store.js";

const tell = (state, words) => postMessage({ state, words });

// First the table (as the page opened it), the bot's level and name, and the key it played
// with before a reload if it did: the bot makes its key (or takes that one back) and says it
// (`{state: "key", hex, secret}`), so the page can keep it and let it in at an invite-only
// table; then `{go}`: it sits down, or takes its seat back.
let ready = null;
onmessage = async (ev) => {
  try {
    if (!ev.data.go) {
      const { opened, level, name, secret } = ev.data;
      await init();
      // Without storage the bot plays on; only a reload would lose it.
      await store.load();
      const me = JSON.parse(core.bot_key(name, secret || undefined));
      ready = () => sit(opened, level, me, Boolean(secret));
      postMessage({ state: "key", hex: me.hex, secret: me.secret });
    } else if (ready) {
      ready();
      ready = null;
    }
  } catch (e) {
    tell("failed", e.message || String(e));
    close();
  }
};

// Sits down at the table (`back`: takes its seat back after a reload, at a seated table).
function sit(opened, level, me, back) {
  const tableEvents = [];
  const kind = `bot-${me.hex}`;
  let seat = null;
  let seating = false;
  let timer = null;
  let done = false;
  // Each round's record is kept, and its events published, after the round before's.
  let sent = Promise.resolve();
  let unkept = false;
  const keep = () =>
    store.keep(kind, opened.table, seat.record()).catch((e) => {
      if (!unkept) tell("unkept", e.message);
      unkept = true;
    });
  const pool = new SeatPool(opened.relays, (events) => {
    if (seat) {
      seat.feed(JSON.stringify(events));
      play();
      return;
    }
    tableEvents.push(...events.filter((e) => e.kind !== undefined));
    step();
  });
  // Its profile names it at the table.
  pool.publish(me.profile);
  const stop = (words) => {
    done = true;
    clearTimeout(timer);
    tell("failed", words);
    pool.close();
    close();
  };
  const play = () => {
    if (done) return;
    clearTimeout(timer);
    let out;
    try {
      const before = sent;
      out = seatRound(seat, pool, opened.relays, play, () => before.then(keep));
      if (out.publish.length) sent = out.sent;
    } catch (e) {
      stop(e.message || String(e));
      return;
    }
    if (out.over) {
      done = true;
      tell("over", out.over.line);
      // The worker ends once the relays took its last events (or gave up on them); its record
      // goes once they took them.
      sent.then(() =>
        lingerThenClose(pool, (owed) => {
          if (owed) return;
          store
            .keep(kind, opened.table, null)
            .catch(() => {})
            .then(() => {
              postMessage({ records: "dropped" });
              close();
            });
        }));
      setTimeout(close, 125000);
      return;
    }
    timer = setTimeout(play, Math.max(out.wake_ms, 0));
  };
  const step = () => joining().catch((e) => stop(e.message || String(e)));
  const joining = async () => {
    if (seat || seating || done) return;
    let lobby;
    if (back) {
      // Its seat follows from the seating on the relays (its nonce went with the reload, and
      // is needed no more); it goes on from its record, if it signed anything before.
      if (!tableEvents.length) return;
      ({ lobby } = JSON.parse(core.check_requests(JSON.stringify(opened), JSON.stringify(tableEvents))));
      tell("seated", "taking its seat back");
    } else {
      let r;
      try {
        r = JSON.parse(core.join_step(JSON.stringify(opened), JSON.stringify(tableEvents)));
      } catch (e) {
        // Until the first announcement arrives there is nothing to read yet.
        if (tableEvents.length) stop(e.message || String(e));
        return;
      }
      for (const e of r.publish) pool.publish(e);
      tell(r.state, r.words);
      if (r.state !== "seated") return;
      lobby = r.lobby;
    }
    seating = true;
    const opening = await openSeat(core, opened, tableEvents, lobby, store.record(kind, opened.table));
    if (!opening.seat) {
      stop(opening.error);
      return;
    }
    seat = opening.seat;
    seat.play_as_bot(level);
    tell("playing", "seated; playing");
    await followTable(seat, pool, opened.relays);
    play();
  };
  pool.subscribe("table", [opened.filter]);
}
