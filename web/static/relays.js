// Relays, for the page and for its bot workers alike (no page here: only sockets): one-off
// queries and publishing, paging through everything a filter matches, a seat's pool of
// connections that keeps its subscriptions and offers its events until each relay takes them,
// and opening a seat in the core from what the relays hold. What the events mean is the core's
// to decide.

// How long a relay may take to answer a query before the page goes on without it.
export const PATIENCE_MS = 6000;

// A relay's message as the JSON array NIP-01 frames it, or null for anything else.
export function frame(m) {
  try {
    const msg = JSON.parse(m.data);
    return Array.isArray(msg) ? msg : null;
  } catch {
    return null;
  }
}

// One exchange with one relay: `start(ws)` once the socket opens, `answer(msg, finish)` for each
// message that parses as JSON, and `finish(result)` once — by the answer, or with words for a
// socket that fails or a relay that runs out of patience. The socket is closed then, unless
// `keep` says a live subscription goes on.
export function exchange(url, start, answer, sockets, keep = () => false, patience = PATIENCE_MS) {
  return new Promise((resolve) => {
    let ws;
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (ws && !keep(result)) {
        try {
          ws.close();
        } catch {}
      }
      resolve(result);
    };
    const timer = setTimeout(() => finish({ fault: `${url} did not answer within ${patience / 1000} s` }), patience);
    try {
      ws = new WebSocket(url);
    } catch {
      finish({ fault: `${url} is not an address this browser can open` });
      return;
    }
    if (sockets) sockets.push(ws);
    ws.onopen = () => start(ws);
    ws.onerror = () => finish({ fault: `could not reach ${url}` });
    ws.onclose = () => finish({ fault: `${url} closed the connection` });
    ws.onmessage = (m) => {
      const msg = frame(m);
      if (msg) answer(msg, finish, ws);
    };
  });
}

// One NIP-01 query to each relay: every EVENT is handed to `onEvent`; resolves when each relay
// has sent EOSE, refused, failed or run out of patience, with what went wrong in words. With
// `live`, the sockets stay open after EOSE and later events keep arriving.
export function query(relays, filter, onEvent, live = false) {
  const sockets = [];
  const done = relays.map((url) => {
    const sub = "q" + Math.random().toString(36).slice(2, 10);
    return exchange(
      url,
      (ws) => ws.send(JSON.stringify(["REQ", sub, filter])),
      (msg, finish) => {
        if (msg[1] !== sub) {
          if (msg[0] === "NOTICE") console.info(url, msg[1]);
          return;
        }
        if (msg[0] === "EVENT") onEvent(msg[2]);
        else if (msg[0] === "EOSE") finish({ fault: null });
        else if (msg[0] === "CLOSED") finish({ fault: `${url} refused the query: ${msg[2] || "no reason given"}` });
      },
      sockets,
      // A live query's sockets stay open whatever the first answer (a slow relay may still
      // send); `close` ends them.
      () => live,
    );
  });
  return {
    done: Promise.all(done).then((results) => results.map((r) => r.fault).filter(Boolean)),
    close: () => sockets.forEach((s) => s.close()),
  };
}

// One NIP-01 query to each relay that may want the page signed in first (NIP-42). A relay that
// sent a challenge is answered with `auth(url, challenge)` (a signed kind-22242 event, or null
// to go on without) once it asks (`CLOSED` with `auth-required:`) or once it answered without
// it (`EOSE`), and then asked again: some relays (nostr-rs-relay's `nip42_dms`) leave out what
// only a signed-in reader may see without saying so. Each event is handed to `onEvent` once.
// A relay that refuses the sign-in says so before it answers the query asked after it.
// Resolves like `query`, with `patience` per relay (a signer extension may ask its person);
// `signedInTo` lists the relays that took the sign-in.
export function querySignedIn(relays, filter, onEvent, auth, patience = PATIENCE_MS) {
  const signedInTo = [];
  const done = relays.map((url) => {
    let challenge = null;
    // Signing in: not yet, "waiting" for the relay's challenge after it asked, "sent", "taken".
    let state = null;
    let signedIn = null;
    let retried = false;
    let sub = "q" + Math.random().toString(36).slice(2, 10);
    const seen = new Set();
    const ask = (ws) => {
      sub = "q" + Math.random().toString(36).slice(2, 10);
      ws.send(JSON.stringify(["REQ", sub, filter]));
    };
    const signIn = async (ws, finish) => {
      state = "signing";
      let ev = null;
      try {
        ev = await auth(url, challenge);
      } catch (e) {
        finish({ fault: `signing in to ${url} failed: ${e.message || e}` });
        return;
      }
      if (!ev) {
        finish({ fault: null });
        return;
      }
      // Asked again at once: a relay takes a connection's messages in order, and some (as
      // nostr-rs-relay 0.8) answer a sign-in only when they refuse it. A relay that answered
      // the query before taking the sign-in says `auth-required:` again, and is asked once more
      // once it took it.
      signedIn = ev.id;
      state = "sent";
      ws.send(JSON.stringify(["AUTH", ev]));
      ask(ws);
    };
    return exchange(
      url,
      (ws) => ws.send(JSON.stringify(["REQ", sub, filter])),
      (msg, finish, ws) => {
        if (msg[0] === "AUTH" && typeof msg[1] === "string") {
          challenge = msg[1];
          // The relay refused the query before it sent its challenge.
          if (state === "waiting") signIn(ws, finish);
          return;
        }
        if (msg[0] === "OK" && msg[1] === signedIn) {
          if (!msg[2]) {
            finish({ fault: `${url} refused the sign-in: ${msg[3] || "no reason given"}` });
            return;
          }
          const again = state === "retry";
          state = "taken";
          if (again) ask(ws);
          return;
        }
        if (msg[1] !== sub) return;
        if (msg[0] === "EVENT" && msg[2] && !seen.has(msg[2].id)) {
          seen.add(msg[2].id);
          onEvent(msg[2]);
          return;
        }
        const closed = msg[0] === "CLOSED";
        if (msg[0] !== "EOSE" && !closed) return;
        const required = closed && String(msg[2] || "").startsWith("auth-required:");
        if (state === null && (required || (!closed && challenge))) {
          if (challenge) signIn(ws, finish);
          else state = "waiting";
          return;
        }
        if (required && !retried && (state === "sent" || state === "taken")) {
          retried = true;
          if (state === "taken") ask(ws);
          else state = "retry";
          return;
        }
        if (signedIn && !closed) signedInTo.push(url);
        finish({ fault: closed ? `${url} refused the query: ${msg[2] || "no reason given"}` : null });
      },
      null,
      () => false,
      patience,
    );
  });
  return { done: Promise.all(done).then((rs) => rs.map((r) => r.fault).filter(Boolean)), signedInTo };
}

// One event offered once to each relay: resolves with each relay's answer (taken, refused and
// why, or silent) when all have answered or run out of patience.
export function publishOnce(relays, ev) {
  return Promise.all(
    relays.map((url) =>
      exchange(
        url,
        (ws) => ws.send(JSON.stringify(["EVENT", ev])),
        (msg, finish) => {
          if (msg[0] === "OK" && msg[1] === ev.id) {
            const why = String(msg[3] || "");
            finish({ ok: msg[2] === true || why.startsWith("duplicate:"), why: why || "no reason given" });
          }
        },
      ).then((r) => ({ url, ok: !!r.ok, why: r.fault || r.why })),
    ),
  );
}

// Every event a filter matches on each relay, page by page, as the terminal's pool pages: a
// relay answers at most its own limit at a time, newest first, so the next page asks for what is
// no newer than the oldest seen, and the end is a page that brings nothing new. A page whose
// events all share one second cannot move `until` past it: that second is fetched again one
// author and one kind at a time, and paging goes on from the second before.
export async function fetchAll(relays, filter) {
  const byId = new Map();
  const faults = [];
  const PAGE = 500;
  const one = async (url, f) => {
    const page = [];
    const fault = await query([url], { ...f, limit: PAGE }, (e) => page.push(e)).done;
    if (fault.length) throw fault;
    let fresh = 0;
    for (const e of page) {
      if (e && typeof e.id === "string" && Number.isInteger(e.created_at) && !byId.has(e.id)) {
        byId.set(e.id, e);
        fresh++;
      }
    }
    const times = page.map((e) => e.created_at).filter(Number.isInteger);
    return { fresh, oldest: Math.min(...times), newest: Math.max(...times), n: times.length };
  };
  for (const url of relays) {
    try {
      let until;
      for (;;) {
        const p = await one(url, until === undefined ? filter : { ...filter, until });
        if (p.n === 0) break;
        if (p.oldest === p.newest) {
          for (const author of filter.authors || [undefined]) {
            for (const kind of filter.kinds || [undefined]) {
              const f = { ...filter, since: p.oldest, until: p.oldest };
              if (author) f.authors = [author];
              if (kind !== undefined) f.kinds = [kind];
              await one(url, f);
            }
          }
          if (p.oldest === 0) break;
          until = p.oldest - 1;
          continue;
        }
        if (p.fresh === 0) break;
        until = p.oldest;
      }
    } catch (fault) {
      faults.push(...(Array.isArray(fault) ? fault : [String(fault)]));
    }
  }
  return { events: [...byId.values()], faults };
}

// A seat's connections: one WebSocket to each relay, reopened with a growing pause when it
// drops, its subscriptions asked again on every reopening. An event the seat signed is offered
// to every relay until that relay takes it (OK true, or "duplicate:"); a relay that says
// "rate-limited:" is offered it again after a pause. The core decides what the events mean.
export class SeatPool {
  constructor(relays, onEvents) {
    this.relays = relays.map((url) => ({ url, ws: null, open: false, pause: 1000, taken: new Set(), note: "" }));
    this.subs = new Map();
    this.owed = new Map();
    this.onEvents = onEvents;
    this.closed = false;
    this.batch = [];
    for (const r of this.relays) this.connect(r);
  }

  connect(r) {
    if (this.closed) return;
    let ws;
    try {
      ws = new WebSocket(r.url);
    } catch {
      r.note = `${r.url} is not an address this browser can open`;
      return;
    }
    r.ws = ws;
    ws.onopen = () => {
      r.open = true;
      r.pause = 1000;
      r.note = "";
      for (const [id, filters] of this.subs) ws.send(JSON.stringify(["REQ", id, ...filters]));
      for (const ev of this.owed.values()) if (!r.taken.has(ev.id)) ws.send(JSON.stringify(["EVENT", ev]));
    };
    ws.onclose = () => {
      r.open = false;
      if (this.closed) return;
      r.note = `lost ${r.url}; trying again in ${Math.round(r.pause / 1000)} s`;
      setTimeout(() => this.connect(r), r.pause);
      r.pause = Math.min(r.pause * 2, 30000);
    };
    ws.onerror = () => {
      r.note = `could not reach ${r.url}`;
    };
    ws.onmessage = (m) => {
      const msg = frame(m);
      if (!msg) return;
      if (msg[0] === "EVENT" && this.subs.has(msg[1]) && msg[2] && typeof msg[2] === "object") {
        this.batch.push(msg[2]);
        if (this.batch.length === 1) {
          queueMicrotask(() => {
            const b = this.batch;
            this.batch = [];
            this.onEvents(b);
          });
        }
      } else if (msg[0] === "OK") {
        const [, id, ok, why = ""] = msg;
        if (ok || why.startsWith("duplicate:")) {
          r.taken.add(id);
          if (this.relays.every((x) => x.taken.has(id) || !x.open)) this.owed.delete(id);
        } else if (why.startsWith("rate-limited:") || why.startsWith("pow:")) {
          r.note = `${r.url} ${why}`;
          const ev = this.owed.get(id);
          setTimeout(() => {
            if (ev && r.open && !r.taken.has(id)) r.ws.send(JSON.stringify(["EVENT", ev]));
          }, r.pause);
        } else {
          r.note = `${r.url} refused an event: ${why || "no reason given"}`;
        }
      } else if (msg[0] === "CLOSED" && this.subs.has(msg[1])) {
        // A relay that ended a subscription is asked again, after a pause.
        r.note = `${r.url} closed a subscription: ${msg[2] || "no reason given"}`;
        const id = msg[1];
        setTimeout(() => {
          if (r.open && this.subs.has(id)) r.ws.send(JSON.stringify(["REQ", id, ...this.subs.get(id)]));
        }, r.pause);
      } else if (msg[0] === "NOTICE") {
        console.info(r.url, msg[1]);
      }
    };
  }

  subscribe(id, filters) {
    this.subs.set(id, filters);
    for (const r of this.relays) if (r.open) r.ws.send(JSON.stringify(["REQ", id, ...filters]));
  }

  unsubscribe(id) {
    this.subs.delete(id);
    for (const r of this.relays) if (r.open) r.ws.send(JSON.stringify(["CLOSE", id]));
  }

  // Offered to every relay until each open one took it.
  publish(ev) {
    this.owed.set(ev.id, ev);
    for (const r of this.relays) if (r.open && !r.taken.has(ev.id)) r.ws.send(JSON.stringify(["EVENT", ev]));
  }

  // Sent once to the relays open now (a heartbeat: the next one comes anyway).
  send(ev) {
    for (const r of this.relays) if (r.open) r.ws.send(JSON.stringify(["EVENT", ev]));
  }

  connected() {
    return this.relays.filter((r) => r.open).length;
  }

  // Whether some relay took the event with this id.
  took(id) {
    return this.relays.some((r) => r.taken.has(id));
  }

  notes() {
    return this.relays.map((r) => r.note).filter(Boolean);
  }

  unsent() {
    return this.owed.size;
  }

  close() {
    this.closed = true;
    for (const r of this.relays) if (r.ws) r.ws.close();
  }
}

// The last events still go out: the pool stays open until every relay took them, for up to two
// minutes (a relay that limits its rate takes them within its window); `said` is told how many
// are still owed as that goes.
export function lingerThenClose(pool, said) {
  const until = Date.now() + 120000;
  const linger = () => {
    const owed = pool.unsent();
    said(owed);
    if (owed && Date.now() < until) setTimeout(linger, 500);
    else pool.close();
  };
  setTimeout(linger, 500);
}

// A seat just opened in the core follows its table: the log and the seats' heartbeats instead of
// the table's announcement, and the log so far handed to it.
export async function followTable(seat, pool, relays) {
  const filters = JSON.parse(seat.filters());
  pool.unsubscribe("table");
  pool.subscribe("log", [filters.log, filters.presence]);
  seat.feed(JSON.stringify((await fetchAll(relays, filters.log)).events));
}

// One round of a seat's loop in the core, and what it asked for carried out: its events offered
// to every relay, its heartbeats sent once, the events it misses asked for again (`again` runs
// once they came). With `keep`, the seat's record is stored first (`keep()` resolves once it
// is, or once storing failed): a reload then never finds the relays holding a move the record
// lacks. The core's answer, with `sent` resolving once its events are offered; a stalled seat
// throws its words.
export function seatRound(seat, pool, relays, again, keep = null) {
  const out = JSON.parse(seat.tick(pool.connected(), JSON.stringify(pool.notes())));
  const publish = () => {
    for (const ev of out.publish) pool.publish(ev);
  };
  if (out.publish.length && keep) out.sent = keep().then(publish);
  else out.sent = Promise.resolve(publish());
  for (const ev of out.beats) pool.send(ev);
  for (const f of out.fetch) query(relays, f, (e) => seat.feed(JSON.stringify([e]))).done.then(again);
  return out;
}

// The seat this key holds at a seated table, opened in `core` (a `PageSeat`) from the lobby's
// messages and the seats' profiles on the relays: `{seat}`, or `{error}` in words. A nonce still
// on its way (a relay that reorders) is waited for, a little longer each time.
export async function openSeat(core, opened, tableEvents, lobbyFilter, record = "") {
  let error = "";
  for (let tries = 0; tries < 10; tries++) {
    const lobby = await fetchAll(opened.relays, lobbyFilter);
    const { seats } = JSON.parse(core.check_requests(JSON.stringify(opened), JSON.stringify(tableEvents)));
    const profiles = [];
    await query(opened.relays, JSON.parse(core.profiles_filter(JSON.stringify(seats))), (e) => profiles.push(e)).done;
    try {
      const seat = new core.PageSeat(JSON.stringify(opened), JSON.stringify(tableEvents), JSON.stringify(lobby.events), JSON.stringify(profiles), record);
      return { seat };
    } catch (e) {
      error = e.message || String(e);
      await new Promise((ok) => setTimeout(ok, 1000 + tries * 500));
    }
  }
  return { error };
}
