// A bot seat, in a worker of its own: its own copy of the verified core, its own key (made here;
// the person's key never comes here) and its own connections to the relays. It asks for a seat at
// the table a link names, as a person in the page does, then plays it with the game's bot: the
// same session every seat runs checks every event it sees. It tells the page how it goes:
// `{state, words}` messages, `state` being the joining step, "playing", "over" or "failed".
import init, * as core from "./pkg/tolerance_web.js";
import { SeatPool, followTable, lingerThenClose, openSeat, seatRound } from "./relays.js";

const tell = (state, words) => postMessage({ state, words });

// First the table and the bot's level: the bot makes its key and says it (`{state: "key", hex}`),
// so the page can let it in at an invite-only table; then `{go}`: it sits down.
let ready = null;
onmessage = async (ev) => {
  try {
    if (!ev.data.go) {
      const { naddr, relays, level, name } = ev.data;
      await init();
      const me = JSON.parse(core.bot_key(name));
      const opened = JSON.parse(core.open_table(naddr, JSON.stringify(relays)));
      ready = () => sit(opened, level, me);
      postMessage({ state: "key", hex: me.hex });
    } else if (ready) {
      ready();
      ready = null;
    }
  } catch (e) {
    tell("failed", e.message || String(e));
    close();
  }
};

function sit(opened, level, me) {
  const tableEvents = [];
  let seat = null;
  let seating = false;
  let timer = null;
  let done = false;
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
      out = seatRound(seat, pool, opened.relays, play);
    } catch (e) {
      stop(e.message || String(e));
      return;
    }
    if (out.over) {
      done = true;
      tell("over", out.over.line);
      // The worker ends once the relays took its last events (or gave up on them).
      lingerThenClose(pool, (owed) => {
        if (!owed) setTimeout(close, 0);
      });
      setTimeout(close, 125000);
      return;
    }
    timer = setTimeout(play, Math.max(out.wake_ms, 0));
  };
  const step = () => joining().catch((e) => stop(e.message || String(e)));
  const joining = async () => {
    if (seat || seating || done) return;
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
    seating = true;
    const opening = await openSeat(core, opened, tableEvents, r.lobby);
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
