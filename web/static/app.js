// The page's glue: it moves bytes between relays and the verified core (pkg/, built from
// web/src by web/build.sh) and puts what the core decided on screen. It decides nothing itself:
// which events are genuine, which table a link names and what it says are the core's answers.
import init, * as core from "./pkg/tolerance_web.js";
import { SeatPool, fetchAll, followTable, lingerThenClose, openSeat, publishOnce, query, querySignedIn, seatRound } from "./relays.js";
import * as store from "./store.js";

const $ = (id) => document.getElementById(id);

function say(text) {
  $("status").textContent = text;
}

function fail(text) {
  $("error").textContent = text;
  $("error").hidden = false;
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
}

// What the page was served with (`tolerance web` writes config.json: its relays, and the
// author feedback goes to); nothing when the page is opened from disk. Kept once read: the
// server writes it once, when it starts.
let served = null;
async function pageConfig() {
  if (served) return served;
  try {
    const r = await fetch("config.json", { cache: "no-store" });
    if (!r.ok) return {};
    const c = await r.json();
    if (!c || typeof c !== "object") return {};
    served = c;
    return c;
  } catch {
    return {};
  }
}

// The relays this page was served with; none when the page is opened from disk.
async function defaultRelays() {
  const c = await pageConfig();
  return Array.isArray(c.relays) ? c.relays : [];
}

// Feedback to the game's author (or to the author config.json names): the core composes,
// signs or checks what the signer extension signed, and routes; this only fetches the relay
// lists it asks for, asks the extension, and publishes.
async function showFeedbackTo() {
  const c = await pageConfig();
  try {
    const plan = JSON.parse(core.feedback_plan(typeof c.author === "string" ? c.author : ""));
    $("feedback-to").textContent = `It goes to ${plan.to.npub}, signed by your key, privately unless you tick "public".`;
  } catch (err) {
    $("feedback-to").textContent = String(err.message || err);
    $("feedback-send").disabled = true;
  }
}

// Words for what a signer extension (or anything else) threw: its message, or a sentence when
// it gave none.
function extensionWhy(err) {
  if (err && typeof err.message === "string" && err.message) return err.message;
  if (typeof err === "string" && err) return err;
  return "it gave no reason";
}

// `promise`, or a refusal after `ms`: an extension that never answers must not hold the page.
function within(promise, ms, why) {
  let timer;
  const late = new Promise((_, no) => {
    timer = setTimeout(() => no(new Error(why)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const EXTENSION_PATIENCE_MS = 120000;

async function sendFeedback() {
  const status = $("feedback-status");
  if ($("feedback-send").disabled) return;
  $("feedback-send").disabled = true;
  delete status.dataset.sent;
  const text = $("feedback-text").value;
  const pub = $("feedback-public").checked;
  try {
    const c = await pageConfig();
    const plan = JSON.parse(core.feedback_plan(typeof c.author === "string" ? c.author : ""));
    const mine = Array.isArray(c.relays) ? c.relays : [];
    const relays = mine.length ? mine : plan.relays;
    status.textContent = "Looking up where the author reads…";
    // Only the lists asked for are kept: a relay flooding the answer cannot push them out.
    const lists = [];
    const wanted = new Set(plan.filter.authors);
    const q = query(relays, plan.filter, (ev) => {
      if (ev && wanted.has(ev.pubkey) && (ev.kind === 10050 || ev.kind === 10002) && lists.length < 1000) lists.push(ev);
    });
    await q.done;
    q.close();
    const listed = JSON.stringify(lists);
    const on = JSON.stringify(relays);
    let out = JSON.parse(core.feedback_compose(text, pub, plan.to.hex, listed, on));
    if (out.sign || out.seal) {
      const ext = extension();
      if (!ext) throw new Error("your signer extension is gone: reload the page, or use your own key");
      if (out.seal && (!ext.nip44 || typeof ext.nip44.encrypt !== "function")) {
        throw new Error('your signer extension cannot encrypt (NIP-44): tick "public", or use your own key. Nothing was sent.');
      }
      status.textContent = "Waiting for your signer extension…";
      const late = "it did not answer within 2 minutes";
      let signed;
      try {
        if (out.sign) {
          signed = await within(ext.signEvent(out.sign), EXTENSION_PATIENCE_MS, late);
        } else {
          const seal = out.seal;
          seal.content = String(await within(ext.nip44.encrypt(out.encrypt.to, out.encrypt.text), EXTENSION_PATIENCE_MS, late));
          signed = await within(ext.signEvent(seal), EXTENSION_PATIENCE_MS, late);
        }
      } catch (err) {
        throw new Error(`your signer extension did not sign: ${extensionWhy(err)}. Nothing was sent.`);
      }
      out = JSON.parse(core.feedback_signed(JSON.stringify(signed), text, pub, plan.to.hex, listed, on));
    }
    status.textContent = "Sending…";
    const results = [];
    for (const p of out.publish) {
      const answers = await publishOnce(p.relays, p.event);
      results.push({
        what: p.what,
        accepted: answers.filter((a) => a.ok).map((a) => a.url),
        refused: answers.filter((a) => !a.ok).map((a) => [a.url, a.why]),
      });
    }
    status.textContent = core.feedback_words(JSON.stringify(results), plan.to.hex);
    status.dataset.sent = "yes";
    $("feedback-text").value = "";
  } catch (err) {
    status.textContent = extensionWhy(err);
    status.dataset.sent = "no";
  } finally {
    $("feedback-send").disabled = false;
  }
}

// The open public tables on the page's relays, each a link that opens it.
async function showLobby() {
  const relays = await defaultRelays();
  const list = $("open-tables");
  if (!relays.length) {
    $("lobby-status").textContent = "This page came with no relay: open a table by its link.";
    return;
  }
  $("lobby-status").textContent = `Looking on ${relays.join(", ")}…`;
  const events = [];
  const faults = await query(relays, JSON.parse(core.open_tables_filter()), (e) => events.push(e)).done;
  const tables = JSON.parse(core.open_tables(JSON.stringify(events), Date.now() / 1000));
  const hosts = await names(relays, [...new Set(tables.map((t) => t.host))]);
  const nameOf = new Map(hosts.map((h) => [h.key, h.name]));
  list.replaceChildren(
    ...tables.map((t) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "#" + t.naddr;
      a.textContent = `${t.game_title}${t.title ? ": " + t.title : ""}`;
      const about = document.createElement("span");
      about.className = "hint";
      about.textContent = ` hosted by ${nameOf.get(t.host) || "someone"} · ${t.players} of ${t.max_players} seats taken · ${t.pace}`;
      li.append(a, about);
      return li;
    }),
  );
  const said = tables.length
    ? `${tables.length} table${tables.length === 1 ? "" : "s"} taking players.`
    : "No public table is taking players on these relays now.";
  $("lobby-status").textContent = faults.length ? `${said} (${faults.join("; ")})` : said;
  document.body.dataset.lobby = String(tables.length);
}

// How long a relay may wait for the person to approve, in the signer extension, signing in or
// opening a message.
const SIGN_IN_PATIENCE_MS = 60000;
// Most messages the extension is asked to open per look (two approvals each).
const EXTENSION_MOST_WRAPS = 30;
let invitationsLook = 0;
let extensionReading = false;

// The invitations sent to the person's key (NIP-17): read with the page's own key as soon as it
// is unlocked; with a signer extension, on "Read my invitations", since the extension opens
// each message (and may ask its person each time). Relays that serve private messages only to
// their recipient are signed in to (NIP-42).
async function showInvitations(withExtension = false) {
  // A read through the extension is the person's own request: nothing else interrupts it.
  if (extensionReading) return;
  const look = ++invitationsLook;
  const list = $("invitations");
  const status = $("invitations-status");
  const signer = core.signer_identity();
  $("invitations-read").hidden = !signer;
  if (!core.key_unlocked() && !signer) {
    list.replaceChildren();
    status.textContent = "Unlock your key, or use your signer extension, to see the invitations sent to you.";
    return;
  }
  if (signer && !withExtension) {
    status.textContent = "Your signer extension opens each of your private messages to find " +
      `the invitations (two approvals a message, at most ${EXTENSION_MOST_WRAPS}): press Read my invitations.`;
    return;
  }
  const relays = await defaultRelays();
  if (!relays.length) return;
  const ext = signer ? extension() : null;
  if (signer && (!ext || !ext.nip44)) {
    status.textContent = "Your signer extension does not open private messages (NIP-44), so this page cannot read your invitations.";
    return;
  }
  status.textContent = `Looking for invitations to you on ${relays.join(", ")}…`;
  const auth = async (url, challenge) => {
    if (!ext) return JSON.parse(core.auth_event(url, challenge));
    const signed = await ext.signEvent(JSON.parse(core.auth_request(url, challenge)));
    return JSON.parse(core.auth_signed(JSON.stringify(signed)));
  };
  const wraps = [];
  const seen = new Set();
  let faults;
  let invitations = [];
  let refused = 0;
  extensionReading = !!ext;
  try {
    // One copy of each message, whichever relays hold it: each costs the extension's person two
    // approvals.
    const take = (e) => {
      if (e && !seen.has(e.id)) {
        seen.add(e.id);
        wraps.push(e);
      }
    };
    const q = querySignedIn(relays, JSON.parse(core.inbox_filter()), take, auth,
      ext ? SIGN_IN_PATIENCE_MS : undefined);
    faults = await q.done;
    // For scripts and tests: the relays that asked this page to sign in, and took it.
    window.signedIn = q.signedInTo;
    if (ext) {
      const open = (pk, ct) => within(Promise.resolve(ext.nip44.decrypt(pk, ct)), SIGN_IN_PATIENCE_MS,
        "your signer extension did not open a message in time");
      for (const wrap of wraps.slice(0, EXTENSION_MOST_WRAPS)) {
        try {
          const seal = String(await open(wrap.pubkey, wrap.content));
          const rumor = String(await open(JSON.parse(seal).pubkey, JSON.parse(seal).content));
          invitations.push(...JSON.parse(core.invitation_opened(seal, rumor)));
        } catch {
          refused += 1;
        }
      }
    } else {
      ({ invitations, refused } = JSON.parse(core.open_invitations(JSON.stringify(wraps))));
    }
  } catch (e) {
    if (look === invitationsLook) status.textContent = `Your invitations could not be read: ${e.message || e}`;
    return;
  } finally {
    extensionReading = false;
  }
  let tables = [];
  if (invitations.length) {
    const events = [];
    faults.push(...await query(relays, JSON.parse(core.invited_tables_filter(JSON.stringify(invitations))), (e) => events.push(e)).done);
    tables = JSON.parse(core.invited_tables(JSON.stringify(invitations), JSON.stringify(events), Date.now() / 1000));
  }
  const people = await names(relays, [...new Set(tables.flatMap((t) => [t.host, t.from]))]);
  if (look !== invitationsLook) return;
  const nameOf = new Map(people.map((p) => [p.key, p.name]));
  list.replaceChildren(
    ...tables.map((t) => {
      const li = el("li");
      const a = el("a", "", `${t.game_title}${t.title ? ": " + t.title : ""}`);
      a.href = "#" + t.naddr;
      const from = t.from === t.host
        ? `from ${nameOf.get(t.host) || "someone"}`
        : `from ${nameOf.get(t.from) || "someone"} (hosted by ${nameOf.get(t.host) || "someone"})`;
      li.append(a, el("span", "hint", ` ${from} · ${t.status} · ${t.players} of ${t.max_players} seats taken · ${t.pace}`));
      return li;
    }),
  );
  const said = tables.length
    ? `${tables.length} invitation${tables.length === 1 ? "" : "s"} to a table you can open.`
    : "No invitation to an open table on these relays.";
  const skipped = refused ? ` ${refused} private message${refused === 1 ? "" : "s"} could not be opened or did not check out.` : "";
  status.textContent = (faults.length ? `${said} (${faults.join("; ")})` : said) + skipped;
  document.body.dataset.invitations = String(tables.length);
}

function showGames() {
  const list = $("game-list");
  list.replaceChildren();
  for (const g of JSON.parse(core.games())) {
    const li = document.createElement("li");
    li.dataset.game = g.name;
    const title = document.createElement("div");
    title.className = "game-title";
    title.textContent = g.title;
    const seats = document.createElement("div");
    seats.className = "seats-range";
    seats.textContent =
      g.min_players === g.max_players
        ? `${g.min_players} player${g.min_players === 1 ? "" : "s"}`
        : `${g.min_players}–${g.max_players} players`;
    const summary = document.createElement("p");
    summary.className = "summary";
    summary.textContent = g.summary;
    li.append(title, seats, summary);
    list.append(li);
  }
}

async function checkTable(opened, tableEvents) {
  clearError();
  $("check").disabled = true;
  say("Fetching every move of the table…");
  try {
    const req = JSON.parse(core.check_requests(JSON.stringify(opened), JSON.stringify(tableEvents)));
    const [lobby, log] = [await fetchAll(opened.relays, req.lobby), await fetchAll(opened.relays, req.log)];
    const profiles = [];
    await query(opened.relays, JSON.parse(core.profiles_filter(JSON.stringify(req.seats))), (e) => profiles.push(e)).done;
    say(`Checking ${log.events.length} events: every signature, proof and rule…`);
    await new Promise((r) => setTimeout(r, 0));
    const v = JSON.parse(
      core.check_table(
        JSON.stringify(opened),
        JSON.stringify(tableEvents),
        JSON.stringify(lobby.events),
        JSON.stringify(log.events),
        JSON.stringify(profiles),
      ),
    );
    const line = $("verdict-line");
    line.textContent = v.verdict;
    line.className = "verdict " + (v.ok ? "ok" : "bad");
    $("verdict-result").textContent = v.result;
    $("verdict-counts").textContent = `${v.events} events checked; ${v.chain_events} on the table's chain.`;
    $("problems").replaceChildren(...v.problems.map((p) => Object.assign(document.createElement("li"), { textContent: p })));
    $("decisions").replaceChildren(...v.decisions.map((p) => Object.assign(document.createElement("li"), { textContent: p })));
    if (v.finished) $("table-status").textContent = "over";
    $("verdict").hidden = false;
    $("verdict").scrollIntoView({ block: "nearest" });
    document.body.dataset.verdict = v.ok ? (v.finished ? "verified" : "so-far") : "broken";
    const faults = [...lobby.faults, ...log.faults];
    say(faults.length ? `Checked from the relays that answered (${faults.join("; ")}).` : "Checked.");
  } catch (e) {
    fail(e.message || String(e));
    say("");
  } finally {
    $("check").disabled = false;
  }
}

async function names(relays, keys) {
  const events = [];
  const q = query(relays, JSON.parse(core.profiles_filter(JSON.stringify(keys))), (e) => events.push(e));
  await q.done;
  return JSON.parse(core.names_of(JSON.stringify(keys), JSON.stringify(events)));
}

// What the browser keeps to take a seat back after a reload (store.js), by table: the core's
// record of a seat asked for ("join": the seating nonce, sealed), of a seat held ("seat": its
// master secret, sealed, and the events it signed), of a table hosted until it is seated
// ("host": its lobby, and the seed of the host's nonces, sealed) and of the bots it runs there
// ("bots": their keys, sealed; each bot keeps its own seat's record). Resolves once stored or
// once storing failed, which is said once: the seat plays on, and only a reload would lose it.
function keepRecord(kind, table, text) {
  return store.keep(kind, table, text).catch((e) => {
    if (text === null || !playing || playing.unkept) return;
    playing.unkept = true;
    const what = {
      host: ["the table's record", "table goes on"],
      bots: ["your bots' record", "bots play on"],
    }[kind] || ["your seat's record", "seat plays on"];
    fail(`This browser would not keep ${what[0]}: ${e.message}. The ${what[1]}, ` +
      "but a reload now would lose it.");
  });
}

// One tab at a time plays or hosts a table: two tabs taking the same seat or lobby back would
// sign for it twice. The browser's lock (Web Locks) is held until the table is done with, or the
// tab closes; a browser without them plays on unguarded.
let tableLock = null;

// Whether this tab now holds `table`; else says another tab does.
async function claimTable(table) {
  if (!navigator.locks) return true;
  if (tableLock && tableLock.table === table) return true;
  return new Promise((claimed) => {
    navigator.locks
      .request(`tolerance.table.${table}`, { ifAvailable: true }, (lock) => {
        if (!lock) {
          fail(OTHER_TAB);
          claimed(false);
          return null;
        }
        return new Promise((release) => {
          tableLock = { table, release };
          claimed(true);
        });
      })
      .catch(() => claimed(true));
  });
}

function releaseTable() {
  if (tableLock) tableLock.release();
  tableLock = null;
}

const OTHER_TAB = "This table is open in another tab of this browser: play it there, or close that tab first.";

// The seat this page plays, if any.
let playing = null;

function seatState(state) {
  document.body.dataset.seat = state;
}

function showStory(lines) {
  const ol = $("story");
  if (ol.childElementCount === lines.length) return;
  ol.replaceChildren(...lines.map((l) => Object.assign(document.createElement("li"), { textContent: l })));
  ol.scrollTop = ol.scrollHeight;
}

// The table drawn (the core's `drawing`: a title, and spots of pieces with notes), or null for a
// game drawn in its words alone. Every piece is also named for screen readers.
const PIPS = [[], [4], [0, 8], [0, 4, 8], [0, 2, 6, 8], [0, 2, 4, 6, 8], [0, 2, 3, 5, 6, 8],
  [0, 2, 3, 4, 5, 6, 8], [0, 1, 2, 3, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 6, 7, 8]];

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function named(e, label) {
  e.setAttribute("role", "img");
  e.setAttribute("aria-label", label);
  return e;
}

// A face of 0 to 9 pips on a 3×3 grid; a larger number (a double-twelve set's) as a numeral.
function pips(cls, n) {
  if (!(n >= 0 && n <= 9)) return el("span", `${cls} big`, String(n));
  const face = el("span", cls);
  for (let i = 0; i < 9; i++) face.append(el("span", PIPS[n].includes(i) ? "pip on" : "pip"));
  return face;
}

function drawPiece(p) {
  switch (p.kind) {
    case "card": {
      const c = named(el("span", p.red ? "card red" : "card"), `${p.rank}${p.suit}`);
      c.append(el("span", "rank", p.rank), el("span", "suit", p.suit));
      return c;
    }
    case "card_back":
      return named(el("span", "card back"), "a card face down");
    case "die":
      return named(pips("die", p.face), `a die showing ${p.face}`);
    case "die_hidden":
      return named(el("span", "die hidden"), "a die under the cup");
    case "named":
      // A card that is not a playing card (a word, a role, an ArtOfFacts card), by its name.
      return named(el("span", "card named", p.text), p.text);
    case "tile_back":
      return named(el("span", "tile back"), "a tile face down");
    case "tile": {
      const t = named(el("span", "tile"), `tile ${p.a}|${p.b}`);
      t.append(pips("half", p.a), pips("half", p.b));
      return t;
    }
    default:
      // A piece this page does not know yet (a newer core): said in words, not drawn wrong.
      return el("span", "notes", p.text || "");
  }
}

function drawTable(d) {
  const root = $("play-drawing");
  // The words fold away once there is a drawing; a person who opens them keeps them open.
  if (root.hidden !== !d) {
    root.hidden = !d;
    $("play-words").open = !d;
  }
  const key = JSON.stringify(d);
  if (!d || root.dataset.drawn === key) return;
  root.dataset.drawn = key;
  const spots = d.spots.map((s) => {
    const li = el("li", ["spot", s.you && "you", s.turn && "turn", s.out && "out"].filter(Boolean).join(" "));
    li.append(el("span", "spot-name", s.name + (s.turn ? " ◀" : "")));
    if (s.pieces.length) {
      const pieces = el("span", "pieces");
      pieces.append(...s.pieces.map(drawPiece));
      li.append(pieces);
    }
    if (s.notes.length) li.append(el("span", "notes", s.notes.join(" · ")));
    return li;
  });
  const ul = el("ul");
  ul.append(...spots);
  root.replaceChildren(el("p", "drawing-title", d.title), ul);
}

// Puts one tick's answer on screen: the table in words, whose turn, the clock, the relays.
function showSeat(out, seat) {
  const t = out.table;
  if (t && window.timing && !window.timing.shown && out.turn) window.timing.shown = performance.now();
  if (t) {
    $("play-table").textContent = t.render;
    drawTable(t.drawing);
    $("play-status").textContent = out.turn ? "Your move" : t.awaiting;
    showStory(t.story);
    playing.deadline = Date.now() + t.deadline_in * 1000;
    const gone = t.silent.length ? ` · not heard from lately: ${t.silent.join(", ")}` : "";
    const rel = t.relays;
    $("play-relays").textContent =
      `relays: ${rel.connected} of ${rel.total} connected` +
      (playing.pool.unsent() ? ` · ${playing.pool.unsent()} event(s) waiting for a relay` : "") +
      (rel.notes.length ? ` · ${rel.notes.join("; ")}` : "") + gone;
  }
  const turn = out.turn;
  if (turn && (!playing.turn || playing.turn.step !== turn.step)) {
    playing.turn = turn;
    $("turn-prompt").textContent = turn.prompt;
    const moves = $("moves");
    // A long list (every raise size) shows its first moves and its last; the rest are typed.
    const shown = turn.moves.map((m, i) => [m, i]).filter(([, i]) => turn.moves.length <= 12 || i < 8 || i >= turn.moves.length - 2);
    moves.replaceChildren(
      ...shown.map(([m, i]) => {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = m;
        b.dataset.move = String(i);
        if (i < 9) b.setAttribute("aria-keyshortcuts", String(i + 1));
        b.onclick = () => choose(seat, turn.step, () => seat.choose(turn.step, i));
        return b;
      }),
    );
    $("turn").hidden = false;
    document.body.dataset.turn = String(turn.step);
    const first = moves.querySelector("button");
    if (first && !$("move-text").matches(":focus")) first.focus({ preventScroll: true });
  } else if (!turn) {
    playing.turn = null;
    $("turn").hidden = true;
    delete document.body.dataset.turn;
  }
  if (out.over) {
    const o = out.over;
    // For scripts and tests: how the table ended for this seat, as the core said it.
    window.lastOver = o;
    $("turn").hidden = true;
    delete document.body.dataset.turn;
    $("play-status").textContent = o.left || (o.finished ? "The table is over." : "The table stopped.");
    $("over-line").textContent = o.line;
    $("over-line").className = "verdict " + (o.rejected.length ? "bad" : "ok");
    $("over-note").textContent = o.rejected.length
      ? `Turned away: ${o.rejected.join("; ")}`
      : "Every event this seat saw was checked here: signatures, proofs and rules.";
    showStory(o.story);
    $("play-over").hidden = false;
    $("play-clock").textContent = "";
    $("leave").hidden = true;
    $("leave-sure").hidden = true;
    document.body.dataset.result = o.result;
    seatState(o.finished ? "over" : "left");
  }
}

function choose(seat, step, pick) {
  clearError();
  try {
    pick();
  } catch (e) {
    fail(e.message || String(e));
    return;
  }
  $("move-text").value = "";
  playing.turn = null;
  $("turn").hidden = true;
  delete document.body.dataset.turn;
  tick(seat);
}

// The seat's shuffle proofs are made in a worker with its own copy of the core, so the page
// keeps answering while one is made (a tick that proves a shuffle holds the page for as long).
// Without a worker, or with one that fails or goes quiet, the seat proves them in its ticks
// again, as it always could.
// Well under the fast pace's 20 s for a crypto step, so that a worker that hangs (or never
// loads) leaves the seat time to prove the shuffle itself.
const PROVER_PATIENCE_MS = 10000;

function startProver() {
  let worker;
  try {
    worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  } catch {
    return null;
  }
  const prover = { worker, ready: false, pending: 0, timer: null };
  const seat = () => (playing && playing.prover === prover ? playing.seat : null);
  const giveUp = () => {
    clearTimeout(prover.timer);
    worker.terminate();
    if (!playing || playing.prover !== prover) return;
    playing.prover = null;
    if (playing.seat) {
      playing.seat.worker(false);
      tick(playing.seat);
    }
  };
  prover.post = (job) => {
    // A proof of work takes as long as it takes (the relays' difficulty): no patience timer;
    // only a worker that fails gives it back to the seat.
    if (isMining(job)) {
      worker.postMessage(job);
      return;
    }
    prover.pending += 1;
    clearTimeout(prover.timer);
    prover.timer = setTimeout(giveUp, PROVER_PATIENCE_MS);
    worker.postMessage(job);
  };
  prover.stop = () => {
    clearTimeout(prover.timer);
    worker.terminate();
  };
  worker.onerror = giveUp;
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.ready) {
      prover.ready = true;
      const s = seat();
      if (s) {
        s.worker(true);
        tick(s);
      }
      return;
    }
    if (m.mined !== undefined) {
      const s = seat();
      if (!s) return;
      try {
        s.mined(m.mined);
      } catch {
        // The seat refused the answer and makes its proofs of work itself from now on.
        giveUp();
        return;
      }
      tick(s);
      return;
    }
    if (!m.done) {
      giveUp();
      return;
    }
    prover.pending -= 1;
    clearTimeout(prover.timer);
    if (prover.pending > 0) prover.timer = setTimeout(giveUp, PROVER_PATIENCE_MS);
    const s = seat();
    if (!s) return;
    try {
      const began = performance.now();
      s.shuffled(m.done);
      playing.longestTake = Math.max(playing.longestTake || 0, performance.now() - began);
    } catch {
      // The seat refused the answer and proves its shuffles itself from now on.
      giveUp();
      return;
    }
    tick(s);
  };
  return prover;
}

function isMining(job) {
  return job.startsWith('{"mine"');
}

// The lobby's messages that need proof of work (a request for a seat and the opening of its
// nonce; the announcements and messages of a table the page hosts) are mined in a worker of
// their own, one after the other, so that the page keeps answering; where no worker starts (or
// it fails) they are mined here, as they always could be. Answers the worker's `{nonce}`.
// `window.lobbyPow` counts where they were made, for tests and reports.
let miner = null;

function mineOffPage(job) {
  window.lobbyPow = window.lobbyPow || { worker: 0, here: 0 };
  const here = () => {
    window.lobbyPow.here += 1;
    return core.mine(job);
  };
  if (!miner) {
    let worker;
    try {
      worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    } catch {
      return Promise.resolve().then(here);
    }
    const m = { worker, waiting: [] };
    const broken = () => {
      worker.terminate();
      if (miner === m) miner = null;
      for (const w of m.waiting.splice(0)) w.fallback();
    };
    worker.onmessage = (ev) => {
      const a = ev.data;
      if (a.ready) return;
      if (a.broken) {
        broken();
        return;
      }
      const w = m.waiting.shift();
      if (!w) return;
      if (a.mined === undefined) {
        w.fallback();
        return;
      }
      window.lobbyPow.worker += 1;
      w.resolve(a.mined);
    };
    worker.onerror = broken;
    miner = m;
  }
  return new Promise((resolve, reject) => {
    const fallback = () => {
      try {
        resolve(here());
      } catch (e) {
        reject(e);
      }
    };
    miner.waiting.push({ resolve, fallback });
    miner.worker.postMessage(job);
  });
}

// Keeps the seat's record before its new events go out; once it is kept, the record of asking
// for the seat is moot.
async function keepSeat(table, seat) {
  await keepRecord("seat", table, seat.record());
  for (const kind of ["join", "host"]) if (store.record(kind, table)) keepRecord(kind, table, null);
}

// One round of the seat's loop in the core, then what it asked for: events to publish,
// events to ask the relays for again, and when to come back.
function tick(seat) {
  if (!playing || playing.seat !== seat || playing.done) return;
  clearTimeout(playing.timer);
  let out;
  const began = performance.now();
  try {
    const table = playing.table;
    // Each round's record is kept, and its events published, after the round before's: the
    // relays get a seat's events in the order it signed them.
    const before = playing.sent || Promise.resolve();
    out = seatRound(seat, playing.pool, playing.relays, () => tick(seat), () => before.then(() => keepSeat(table, seat)));
    if (out.publish.length) playing.sent = out.sent;
    playing.longestTick = Math.max(playing.longestTick || 0, performance.now() - began);
  } catch (e) {
    fail(e.message || String(e));
    seatState("stalled");
    playing.done = true;
    return;
  }
  if (out.jobs && out.jobs.length) {
    if (playing.prover) {
      for (const job of out.jobs) playing.prover.post(job);
    } else {
      // The worker went away since: the seat proves them itself.
      seat.worker(false);
      setTimeout(() => tick(seat), 0);
    }
  }
  // For scripts and tests: where this seat's shuffles were proved, and the longest the page was
  // held by a tick and by taking a worker's answer (checking its proof), in ms.
  window.proofs = {
    ...JSON.parse(seat.proofs()),
    longest_tick_ms: Math.round(playing.longestTick || 0),
    longest_take_ms: Math.round(playing.longestTake || 0),
  };
  showSeat(out, seat);
  if (out.over) {
    playing.done = true;
    if (playing.prover) playing.prover.stop();
    const { pool, table } = playing;
    (playing.sent || Promise.resolve()).then(() =>
      lingerThenClose(pool, (owed) => {
        $("play-relays").textContent = owed
          ? `handing this seat's last ${owed} event(s) to the relays…`
          : "the relays took every event this seat signed";
        // Kept until the relays took every event, so a tab closed before still has them.
        // The bots' record goes once each bot dropped its own.
        if (!owed) {
          Promise.all(["seat", "join", "host"].map((kind) => keepRecord(kind, table, null)))
            .then(() => Promise.all(bots.map((b) => b.dropped)))
            .then(() => keepRecord("bots", table, null))
            .then(releaseTable)
            .then(() => (document.body.dataset.records = "dropped"));
        }
      }));
    return;
  }
  playing.timer = setTimeout(() => tick(seat), Math.max(out.wake_ms, 0));
}

// Whether a key signs here (the page's own, unlocked, or a signer extension's); else says `why`
// it must and points at the key's panel.
function keyReady(why) {
  if (core.key_unlocked() || core.signer_identity()) return true;
  fail(why);
  $("you").scrollIntoView({ block: "nearest" });
  return false;
}

// The page is at no table yet; else says so (one table at a time).
function atNoTable() {
  if (!hosting && !playing) return true;
  fail("This page is at a table already: one table at a time.");
  return false;
}

// The start of sitting down or coming back: the key must be unlocked (`why` says what for),
// and one seat at a time; false when the page cannot start.
function startSeat(opened, why) {
  clearError();
  if (!keyReady(why)) return false;
  if (playing) return false;
  $("sit-down").disabled = true;
  playing = { table: opened.table, relays: opened.relays, pool: null, seat: null, turn: null, deadline: 0, done: false };
  // Started now, so that its core is loaded by the time the seat first shuffles.
  playing.prover = startProver();
  return true;
}

// The seat being taken cannot be: says why, closes its connections and lets the person try
// again.
function seatRefused(pool, message) {
  releaseTable();
  fail(message);
  stopBots();
  seatState("refused");
  pool.close();
  if (playing && playing.prover) playing.prover.stop();
  playing = null;
  $("sit-down").disabled = false;
}

// Sits down at the table a link opened: asks the host for a seat with this page's key, opens
// the seating nonce when the table is full, then plays the seat here. With `kept` (the record
// of a seat this browser asked for before a reload, and the announcement it was read from),
// the asking goes on from where it stood, with the same nonce.
async function sitDown(opened, kept = null) {
  if (!(await claimTable(opened.table))) return;
  if (!startSeat(opened, kept
    ? "Unlock your key, or use the signer extension you sat down with, first: the seat you asked for was kept for it."
    : "Unlock your key (or make one), or use your signer extension, first: your seat signs every move with it.")) {
    releaseTable();
    return;
  }
  // For the benchmark: when the person sat down, and (in showSeat) when their cards first showed.
  window.timing = { sat: performance.now() };
  const tableEvents = [];
  const pool = new SeatPool(opened.relays, (events) => {
    if (feedSeat(pool, events)) return;
    tableEvents.push(...events.filter((e) => e.kind !== undefined));
    step();
  });
  playing.pool = pool;
  seatState("asking");
  if (kept) {
    const why = await restoreTableKey(opened.table, kept.record, ["The seat you asked for", "the seat you asked for"]);
    let own;
    try {
      if (why) throw new Error(why);
      own = JSON.parse(core.join_restore(JSON.stringify(opened), JSON.stringify(kept.events), kept.record));
    } catch (e) {
      seatRefused(pool, e.message || String(e));
      return;
    }
    // One of them may never have reached a relay before the reload.
    for (const ev of own) pool.publish(ev);
  }
  let seating = false;
  let authorizing = false;
  let mining = false;
  const refused = (m) => seatRefused(pool, m);
  const step = async () => {
    if (seating || authorizing || mining) return;
    let r;
    try {
      r = JSON.parse(core.join_step(JSON.stringify(opened), JSON.stringify(tableEvents)));
    } catch (e) {
      const m = e.message || String(e);
      // Until the first announcement arrives there is nothing to read yet.
      if (!tableEvents.length) return;
      // This key cannot sit here (cancelled, filled without it, listed falsely): nothing to
      // take back after a reload.
      keepRecord("join", opened.table, null);
      refused(m);
      return;
    }
    if (r.state === "mining") {
      // The request is signed once its proof of work is in; the page goes on meanwhile.
      mining = true;
      $("sit-note").textContent = r.words;
      seatState(r.state);
      try {
        const answer = await mineOffPage(r.mine);
        r = JSON.parse(core.join_mined(JSON.stringify(opened), JSON.stringify(tableEvents), answer));
      } catch (e) {
        refused(`Your request for a seat could not be made: ${e.message || e}`);
        return;
      } finally {
        mining = false;
      }
    }
    if (r.publish.length) {
      // Kept first: a reload must find the nonce a published commitment stands for.
      await keepRecord("join", opened.table, JSON.stringify(r.record));
      for (const ev of r.publish) pool.publish(ev);
    }
    $("sit-note").textContent = r.words;
    seatState(r.state);
    if (r.state === "authorize") {
      // One approval per table: the extension signs the authorization of this table's key.
      authorizing = true;
      const ext = extension();
      if (!ext) {
        refused("Your signer extension is gone from this page: it must approve the key that " +
          "plays your seat.");
        return;
      }
      let signed;
      try {
        signed = await ext.signEvent(r.request);
      } catch (e) {
        refused(`Your signer extension did not approve this table's key, so you are not seated: ${e.message || e}`);
        return;
      }
      try {
        core.join_authorize(JSON.stringify(opened), JSON.stringify(tableEvents), JSON.stringify(signed));
      } catch (e) {
        refused(e.message || String(e));
        return;
      }
      authorizing = false;
      step();
      return;
    }
    if (r.state === "seated") {
      seating = true;
      await takeSeat(opened, tableEvents, r.lobby, pool);
    }
  };
  pool.subscribe("table", [opened.filter]);
}

// Hands what the relays sent on `pool` to the seat that pool serves, once the core opened it;
// false before that. The seat is the one `takeSeat` opened, from the moment it opened it: the
// log subscription is live while the log so far is still being fetched, and an event that
// comes meanwhile may be missing from the fetched answer (the relay stored it after it
// answered), so the seat takes it as it comes rather than setting it aside.
function feedSeat(pool, events) {
  const seat = playing && playing.pool === pool ? playing.seat : null;
  if (!seat) return false;
  seat.feed(JSON.stringify(events));
  tick(seat);
  return true;
}

// The seats are fixed: checks the seating against every player's nonce (waiting a little for
// one still on its way), opens the seat in the core and starts its loop.
async function takeSeat(opened, tableEvents, lobbyFilter, pool, record = "") {
  const { seat, error } = await openSeat(core, opened, tableEvents, lobbyFilter, record);
  if (!seat) {
    seatRefused(pool, error);
    return null;
  }
  playing.seat = seat;
  // Jobs go to the worker even while its core is still loading: it takes them once loaded, so
  // a slow load delays a shuffle rather than proving it here and holding the page.
  if (playing.prover) seat.worker(true);
  seatState("playing");
  $("sit").hidden = true;
  $("play").hidden = false;
  $("play-over").hidden = true;
  $("leave").hidden = false;
  $("play").scrollIntoView({ block: "start" });
  await followTable(seat, pool, opened.relays);
  tick(seat);
  return seat;
}

// A kept record of a seat held by a table key sealed to your identity (a signer extension's
// seat): only the extension opens that key, and the core takes it back. Null when that worked
// or the record names no table key, else why not in words.
async function restoreTableKey(table, record, [This, what]) {
  let tk = null;
  try {
    tk = JSON.parse(record).table_key || null;
  } catch {
    // A damaged record is said in words by the core.
  }
  if (!tk) return null;
  const ext = extension();
  const signer = core.signer_identity();
  if (!ext || !ext.nip44 || typeof ext.nip44.decrypt !== "function") {
    return `${This} was taken with a signer extension: use one that decrypts (NIP-07 nip44) to take it back.`;
  }
  if (!signer || JSON.parse(signer).hex !== tk.identity) {
    return `${This} was taken with a signer extension: use it (Use my signer extension) to take it back.`;
  }
  let secret;
  try {
    secret = String(await ext.nip44.decrypt(tk.key, tk.sealed));
  } catch (e) {
    return `Your signer extension did not open the key of ${what}: ${e.message || e}`;
  }
  try {
    core.signer_restore(table, tk.key, secret);
  } catch (e) {
    return e.message || String(e);
  }
  return null;
}

// Takes back the seat this browser kept a record of (after a reload or a closed tab).
async function resumeSeat(opened, tableEvents) {
  if (!(await claimTable(opened.table))) return;
  if (!startSeat(opened, "Unlock your key, or use the signer extension you sat down with, first: your seat was kept for it.")) {
    releaseTable();
    return;
  }
  const pool = new SeatPool(opened.relays, (events) => feedSeat(pool, events));
  playing.pool = pool;
  seatState("resuming");
  const record = store.record("seat", opened.table);
  const why = await restoreTableKey(opened.table, record, ["This seat", "this seat"]);
  if (why) {
    seatRefused(pool, why);
    return;
  }
  resumeBots(opened);
  const { lobby } = JSON.parse(core.check_requests(JSON.stringify(opened), JSON.stringify(tableEvents)));
  await takeSeat(opened, [...tableEvents], lobby, pool, record);
}

function wireSeat() {
  $("move-typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!playing || !playing.turn) return;
    const { seat } = playing;
    const step = playing.turn.step;
    const text = $("move-text").value;
    choose(seat, step, () => seat.type_move(step, text));
  });
  $("leave").addEventListener("click", () => {
    $("leave").hidden = true;
    $("leave-sure").hidden = false;
    $("leave-sure").focus();
  });
  $("leave-sure").addEventListener("click", () => {
    if (!playing || !playing.seat) return;
    playing.seat.leave();
    $("leave-sure").hidden = true;
    tick(playing.seat);
  });
  // Keys 1–9 pick the listed moves while a turn is shown and no field is being typed in.
  document.addEventListener("keydown", (ev) => {
    if (!playing || !playing.turn || ev.target.matches("input") || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const b = document.querySelector(`#moves button[aria-keyshortcuts="${ev.key}"]`);
    if (b) {
      ev.preventDefault();
      b.click();
    }
  });
  setInterval(() => {
    if (!playing || !playing.seat || playing.done) return;
    const left = Math.max(0, Math.round((playing.deadline - Date.now()) / 1000));
    $("play-clock").textContent = `${left} s left at this step`;
  }, 1000);
}

// The table this page hosts while it takes players: its lobby runs in the core (the same one as
// `tolerance host`), and the page publishes what it signs and hands it what the relays send.
// Once the seats are fixed the host's seat plays like any other; null then, or once closed.
let hosting = null;

function wireHost() {
  const games = JSON.parse(core.host_games());
  const sel = $("host-game");
  sel.replaceChildren(...games.map((g) => Object.assign(document.createElement("option"), { value: g.name, textContent: g.title })));
  const pick = () => {
    const g = games.find((x) => x.name === sel.value);
    $("host-variant").replaceChildren(...g.variants.map((v) => Object.assign(document.createElement("option"), { value: v, textContent: v })));
    const seats = $("host-seats");
    seats.min = g.min_players;
    seats.max = g.max_players;
    seats.value = Math.min(Math.max(Number(seats.value) || g.min_players, g.min_players), g.max_players);
  };
  sel.addEventListener("change", pick);
  pick();
  $("host-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    hostTable();
  });
  $("host-start").addEventListener("click", () => {
    if (!hosting) return;
    hosting.host.start_now();
    hostTick();
  });
  $("host-cancel").addEventListener("click", () => {
    if (!hosting) return;
    hosting.host.cancel("the host closed the table");
    hostTick();
  });
}

// The proof of work the relays ask on every event (NIP-11's limitation.min_pow_difficulty), the
// most any asks. A relay whose document cannot be read asks none as far as the page knows; one
// that does ask says so ("pow:") when it refuses an event, and the page shows that.
async function relaysPow(relays) {
  const asks = await Promise.all(
    relays.map(async (url) => {
      try {
        const r = await within(fetch(url.replace(/^ws/, "http"), { headers: { Accept: "application/nostr+json" } }), 3000, "slow");
        const n = Number(((await r.json()).limitation || {}).min_pow_difficulty);
        return Number.isFinite(n) && n > 0 ? Math.min(255, Math.floor(n)) : 0;
      } catch {
        return 0;
      }
    }),
  );
  return Math.max(0, ...asks);
}

// Hosts a table of the form's game on the page's relays, with this page's key (or a key the
// signer extension approves for this table), and plays the host's seat once it is seated.
async function hostTable() {
  clearError();
  // Taken at once: a second press while the first is still on its way must not host twice.
  if ($("host-open").disabled) return;
  if (!atNoTable() || !keyReady("Unlock your key (or make one), or use your signer extension, first: your seat at the table signs every move with it.")) return;
  const form = {
    game: $("host-game").value,
    variant: $("host-variant").value || null,
    seats: Number($("host-seats").value),
    title: $("host-title").value,
    pace: $("host-pace").value,
    hands: Number($("host-hands").value) || null,
    wait_secs: 1800,
    invite: $("host-invite").value.split(/\s+/).filter(Boolean),
    invite_only: $("host-invite-only").checked,
  };
  const botCount = Number($("host-bots").value) || 0;
  if (botCount < 0 || botCount >= form.seats) {
    fail(`A table of ${form.seats} seats takes at most ${Math.max(form.seats - 1, 0)} bot${form.seats === 2 ? "" : "s"}: one seat is yours.`);
    return;
  }
  $("host-open").disabled = true;
  try {
    const relays = await defaultRelays();
    if (!relays.length) throw new Error("This page came with no relay to host on.");
    const host = new core.PageHost(JSON.stringify(form), JSON.stringify(relays), await relaysPow(relays));
    const ask = host.request();
    if (ask) {
      const ext = extension();
      if (!ext) throw new Error("Your signer extension is gone from this page: it must approve the key that plays your seat.");
      say("Approve, in your signer extension, the key this page made to host and play this table.");
      let signed;
      try {
        signed = await within(ext.signEvent(JSON.parse(ask)), EXTENSION_PATIENCE_MS, "it did not answer within two minutes");
      } catch (e) {
        throw new Error(`Your signer extension did not approve this table's key, so the table is not hosted: ${extensionWhy(e)}`);
      }
      host.authorize(JSON.stringify(signed));
    }
    host.open();
    const naddr = host.naddr();
    const opened = JSON.parse(core.open_table(naddr, JSON.stringify(relays)));
    await claimTable(opened.table);
    const h = runHost(host, opened, "Unlock your key first.");
    if (!h) {
      releaseTable();
      return;
    }
    say("Your table is announced: send its link to the people you play with.");
    hostTick();
    startBots(h, botCount, $("host-level").value);
    sendInvitations(h);
    showHostedTable(h);
  } catch (e) {
    fail(e.message || String(e));
  } finally {
    $("host-open").disabled = false;
  }
}

// The hosted table's connections and panel, for a table just announced or taken back after a
// reload; null when the page cannot take a seat now (`why` says so).
function runHost(host, opened, why) {
  if (!startSeat(opened, why)) return null;
  const { relays } = opened;
  const naddr = host.naddr();
  const pool = new SeatPool(relays, (events) => {
    if (playing && playing.seat) {
      playing.seat.feed(JSON.stringify(events));
      tick(playing.seat);
    } else if (hosting && hosting.host === host) {
      host.feed(JSON.stringify(events));
      if (!hosting.holding) hostTick();
    }
  });
  playing.pool = pool;
  hosting = { host, opened, naddr, relays, pool, announcements: [], timer: null, asked: new Set(), botsOwed: 0 };
  const link = `${location.origin}${location.pathname}#${naddr}`;
  $("host-link").href = link;
  $("host-link").textContent = link;
  $("host-join").textContent = `tolerance join ${naddr}`;
  $("host-news").replaceChildren();
  $("host-form").hidden = true;
  $("hosting").hidden = false;
  $("host-cancel").hidden = false;
  pool.subscribe("lobby", [JSON.parse(host.filter())]);
  return hosting;
}

// Takes back the table this browser hosted and kept a record of, after a reload: the lobby goes
// on from its record and what the relays hold (read in full before its first round, so that no
// nonce on its way is missed), and bots the page ran start again in the places they left.
async function resumeHost(opened, record) {
  clearError();
  if (!atNoTable() || !keyReady("Unlock your key, or use the signer extension you hosted with, first: the table you host was kept for it.")) return;
  if (!(await claimTable(opened.table))) return;
  $("sit-down").disabled = true;
  let host;
  try {
    const why = await restoreTableKey(opened.table, record, ["The table you host", "the table you host"]);
    if (why) throw new Error(why);
    host = core.PageHost.restore(record, JSON.stringify(current ? current.events : []));
    const events = [];
    await query(opened.relays, JSON.parse(host.filter()), (e) => events.push(e)).done;
    host.feed(JSON.stringify(events));
  } catch (e) {
    releaseTable();
    fail(e.message || String(e));
    $("sit-down").disabled = false;
    return;
  }
  const h = runHost(host, opened, "Unlock your key first.");
  if (!h) {
    releaseTable();
    return;
  }
  const gone = host.bots_gone();
  const ran = gone === 1 ? "the bot this page ran" : `the ${gone} bots this page ran`;
  if (host.seated() && store.record("bots", opened.table)) {
    resumeBots(opened);
  } else if (gone && host.seated()) {
    hostNews(`${ran} stopped with the reload: the table goes on without ${gone === 1 ? "it" : "them"} once ${gone === 1 ? "it misses its" : "they miss their"} turns`);
  } else if (gone) {
    // They had not sat down: new ones, with keys of their own, take their places.
    keepRecord("bots", opened.table, null);
    h.botsOwed = gone;
    hostNews(`${ran} stopped with the reload: new ones take ${gone === 1 ? "its place" : "their places"}`);
  }
  say("Your table is taken back: it goes on from where it stood.");
  hostTick();
  // The invitations the page had not sent before the reload go now.
  if (!host.seated()) sendInvitations(h);
}

// The invitations: a private message (NIP-17) with the table's link to each invited key, on its
// inbox relays and the table's. With a signer extension the identity seals each (it approves an
// encryption and a signature per person invited); with the page's key the page keeps a copy.
async function sendInvitations(h) {
  const plan = h.host.invite_plan();
  if (!plan) return;
  const { filter, invited } = JSON.parse(plan);
  try {
    // The invited are named in the news by their profiles.
    h.host.learn(JSON.stringify(await names(h.relays, invited)));
    const lists = [];
    await query(h.relays, filter, (e) => lists.push(e)).done;
    const listed = JSON.stringify(lists);
    const asks = JSON.parse(h.host.invitations(listed));
    for (const a of asks) {
      // A table closed meanwhile invites nobody more.
      if (hosting !== h) return;
      try {
        let publish = a.publish;
        if (!publish) {
          const ext = extension();
          if (!ext || !ext.nip44 || typeof ext.nip44.encrypt !== "function") {
            throw new Error("inviting as your identity needs your signer extension to encrypt (NIP-44)");
          }
          const late = "your signer extension did not answer within two minutes";
          const seal = a.seal;
          seal.content = String(await within(ext.nip44.encrypt(a.encrypt.to, a.encrypt.text), EXTENSION_PATIENCE_MS, late));
          const signed = await within(ext.signEvent(seal), EXTENSION_PATIENCE_MS, late);
          publish = JSON.parse(h.host.invitation_signed(JSON.stringify(signed), a.to, listed)).publish;
        }
        const invitation = publish.find((p) => p.what === "invitation");
        for (const p of publish) if (p !== invitation) publishOnce(p.relays, p.event);
        const answers = await publishOnce(invitation.relays, invitation.event);
        const why = answers.filter((x) => !x.ok).map((x) => `${x.url}: ${x.why}`).join("; ");
        const took = answers.filter((x) => x.ok).length;
        hostNews(h.host.invite_news(a.to, took, why));
        if (took) keepInvited(h);
      } catch (e) {
        hostNews(h.host.invite_news(a.to, 0, extensionWhy(e)));
      }
    }
  } catch (e) {
    hostNews(`the invitations could not be sent: ${e.message || String(e)}`);
  }
}

// An invitation a relay took is kept in the table's record (after the records before it), so
// that the table taken back after a reload invites only those it had not reached.
function keepInvited(h) {
  h.sent = (h.sent || Promise.resolve()).then(() => {
    const record = hosting === h && h.host.record_now();
    if (record) return keepRecord("host", h.opened.table, record);
  });
}

// A line of the hosted table's news.
function hostNews(line) {
  const news = $("host-news");
  news.append(Object.assign(document.createElement("li"), { textContent: line }));
  news.scrollTop = news.scrollHeight;
}

// The bot seats of the table this page hosts: each a worker with its own copy of the core, its
// own key and its own connections, sitting down by the table's link as anyone does. A bot's
// `dropped` resolves once it dropped its record, or stopped.
let bots = [];

// A bot named `name` at the table `opened` at `level`: a new one (`admit(hex, secret)` keeps its
// key and lets it in, before it asks for a seat), or with the `secret` kept, one started again
// after a reload, which takes its seat back.
function startBot(opened, name, level, secret, admit) {
  const worker = new Worker(new URL("./bot.js", import.meta.url), { type: "module" });
  let done;
  const bot = { worker, dropped: new Promise((ok) => (done = ok)) };
  const gone = (words) => {
    if (words) botNews(`${name} stopped: ${words}`);
    bots = bots.filter((b) => b !== bot);
    done();
  };
  worker.onmessage = (m) => {
    const { state, words, hex, records } = m.data || {};
    if (records === "dropped") {
      gone();
      return;
    }
    if (state === "key") {
      Promise.resolve()
        .then(() => admit && admit(hex, m.data.secret))
        .then(() => worker.postMessage({ go: true }))
        .catch((e) => {
          worker.terminate();
          gone(e.message || String(e));
        });
      return;
    }
    if (state === "unkept") {
      botNews(`this browser would not keep ${name}'s record (${words}): it plays on, but a reload now would lose it`);
      return;
    }
    if (state === "failed") gone(words);
    // For scripts and tests: each bot's last word.
    window.botStates = { ...(window.botStates || {}), [name]: state };
  };
  worker.onerror = (e) => gone(`it could not start (${(e && e.message) || "its worker did not load"})`);
  worker.postMessage({ opened, level, name, secret });
  bots.push(bot);
}

function startBots(h, count, level) {
  const { table } = h.opened;
  for (let i = 1; i <= count; i++) {
    const name = `bot ${i}`;
    // The page's own bot: let in even where only the invited may sit down.
    startBot(h.opened, name, level, undefined, (hex, secret) =>
      keepRecord("bots", table, h.host.admit_bot(name, secret, level)));
  }
}

// The bots this page ran at a seated table before a reload start again, each with the key the
// page kept sealed by the table key (taken back first), and each takes its seat back from its
// own record.
function resumeBots(opened) {
  const record = store.record("bots", opened.table);
  if (!record) return;
  let kept;
  try {
    kept = JSON.parse(core.bots_back(opened.table, record));
  } catch (e) {
    botNews(e.message || String(e));
    return;
  }
  for (const b of kept.bots) startBot(opened, b.name, kept.level, b.secret, null);
  const n = kept.bots.length;
  if (n) botNews(`${n === 1 ? "the bot this page ran takes its seat" : `the ${n} bots this page ran take their seats`} back`);
}

// News of the page's bots: in the hosted table's news while it takes players, else in the
// status line.
function botNews(line) {
  if (hosting) hostNews(line);
  else say(line.charAt(0).toUpperCase() + line.slice(1) + ".");
}

// How long the relays have to take a table's first announcement before the page gives up on it.
const ANNOUNCE_PATIENCE_MS = 20000;

function stopBots() {
  for (const b of bots) b.worker.terminate();
  bots = [];
}

// The table's own panel (seats by name, as anyone opening the link sees them) once a relay
// holds its announcement; a table no relay takes is cancelled, saying what the relays said.
function showHostedTable(h, since = Date.now()) {
  // A table seated at once (bots fill it) is still shown, and its link kept for a reload.
  const seated = playing && playing.table === h.opened.table && hosting === null;
  if (hosting !== h && !seated) return;
  const first = h.announcements[0];
  if (first && h.pool.took(first.id)) {
    location.hash = h.naddr;
    return;
  }
  const notes = h.pool.notes();
  if (Date.now() - since > ANNOUNCE_PATIENCE_MS) {
    if (seated) return;
    h.host.cancel(`no relay took the table's announcement${notes.length ? ` (${notes.join("; ")})` : ""}`);
    hostTick();
    return;
  }
  if (notes.length) $("host-words").textContent = `waiting for the relays to take the table: ${notes.join("; ")}`;
  setTimeout(() => showHostedTable(h, since), 300);
}

// One round of the hosted lobby in the core, then what it asked for.
async function hostTick() {
  const h = hosting;
  if (!h) return;
  // A round whose events are still in the worker for their proof of work: the next round
  // follows it.
  if (h.mining) {
    h.again = true;
    return;
  }
  clearTimeout(h.timer);
  let out;
  try {
    out = JSON.parse(h.host.tick());
    if (out.mine.length) {
      h.mining = true;
      const answers = [];
      for (const job of out.mine) answers.push(await mineOffPage(job));
      const mined = JSON.parse(h.host.mined(JSON.stringify(answers)));
      out.publish = mined.publish;
      // A key that could not sign cancelled the table; its cancellation is in `publish`.
      if (mined.cancelled) Object.assign(out, { state: "cancelled", words: mined.cancelled });
    }
  } catch (e) {
    out = { state: "cancelled", words: e.message || String(e), news: [], publish: [], people: [] };
  } finally {
    h.mining = false;
  }
  if (hosting !== h) return;
  if (h.again) {
    h.again = false;
    setTimeout(hostTick, 0);
  }
  // Kept first: a reload must find the seed of the nonce a published commitment stands for.
  // Each round's record and events follow the round before's.
  if (out.publish.length) {
    const { table } = h.opened;
    h.sent = (h.sent || Promise.resolve())
      .then(() => keepRecord("host", table, out.record))
      .then(() => out.publish.forEach((ev) => h.pool.publish(ev)));
  }
  for (const ev of out.publish) if (ev.kind === 37767) h.announcements.push(ev);
  out.news.forEach(hostNews);
  $("host-words").textContent = out.words;
  $("host-start").hidden = !(out.state === "open" && out.players >= out.min && out.players < out.max);
  document.body.dataset.hosting = out.state;
  // The people who join are named in the news once their profiles are read.
  const unknown = out.people.filter((k) => !h.asked.has(k));
  if (unknown.length) {
    unknown.forEach((k) => h.asked.add(k));
    names(h.relays, unknown).then((n) => h.host.learn(JSON.stringify(n)));
  }
  if (out.state === "open" && h.botsOwed) {
    startBots(h, h.botsOwed, h.host.bot_level());
    h.botsOwed = 0;
  }
  if (out.state === "seated") {
    // The news (who sat down, the seating) stays on screen; the seat plays on below. The seat's
    // events follow the seated announcement; its record replaces the table's.
    hosting = null;
    playing.sent = h.sent;
    h.pool.unsubscribe("lobby");
    $("host-start").hidden = true;
    $("host-cancel").hidden = true;
    takeSeat(h.opened, h.announcements, JSON.parse(h.host.filter()), h.pool);
    return;
  }
  if (out.state === "cancelled") {
    hosting = null;
    stopBots();
    $("host-start").hidden = true;
    $("host-cancel").hidden = true;
    $("host-form").hidden = false;
    if (playing && playing.prover) playing.prover.stop();
    playing = null;
    $("sit-down").disabled = false;
    (h.sent || Promise.resolve()).then(() => {
      keepRecord("host", h.opened.table, null);
      keepRecord("bots", h.opened.table, null);
      releaseTable();
      lingerThenClose(h.pool, () => {});
    });
    return;
  }
  // Just closed: the players' time to reveal starts once a relay has the host's own nonce (or
  // after a few seconds), not while the page's socket still holds it.
  const reveal = out.publish.find((e) => e.kind === 7768);
  if (out.state === "starting" && out.wake_ms === 0 && reveal) {
    h.holding = true;
    const since = Date.now();
    const sent = () => {
      if (hosting !== h) return;
      if (h.pool.took(reveal.id) || Date.now() - since > REVEAL_SENT_PATIENCE_MS) {
        h.holding = false;
        hostTick();
      } else h.timer = setTimeout(sent, 100);
    };
    h.timer = setTimeout(sent, 100);
    return;
  }
  h.timer = setTimeout(hostTick, Math.max(out.wake_ms, 0));
}

// How long the page waits for a relay to take the host's nonce before the players' time to
// reveal starts anyway.
const REVEAL_SENT_PATIENCE_MS = 5000;

let current = null;

function renderTable(view, opened, people) {
  $("table-game").textContent = view.game_title;
  $("table-title").textContent = view.title;
  $("table-title").hidden = !view.title;
  $("table-status").textContent = view.status_words;
  $("table-pace").textContent = view.pace;
  $("table-relays").textContent = opened.relays.join(", ");
  const open = view.status === "open";
  const mine = playing !== null && playing.table === opened.table;
  $("terminal-lead").textContent = mine && open
    ? "Others sit down by its link, or from a terminal:"
    : open
      ? "Sit down here, or from a terminal:"
      : "Follow it from a terminal:";
  $("join-command").textContent = `tolerance ${open ? "join" : "watch"} ${view.naddr}`;
  const seats = $("seats");
  seats.replaceChildren();
  for (const p of people) {
    const li = document.createElement("li");
    li.className = "seat";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = p.name + (p.key === view.host ? " (host)" : "");
    li.title = p.npub;
    li.append(name);
    // Beside a profile name, the npub it belongs to; without a profile the name already is the
    // npub, shortened.
    if (p.named) {
      const npub = document.createElement("span");
      npub.className = "npub";
      npub.textContent = p.npub;
      li.append(npub);
    }
    seats.append(li);
  }
  const free = view.max_players - people.length;
  if (open && free > 0) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = `${free} seat${free === 1 ? "" : "s"} open`;
    seats.append(li);
  }
  $("check").hidden = view.status !== "seated";
  // A seat held here, asked for or hosted before a reload is taken back rather than asked for
  // anew.
  const held = view.status === "seated" && store.record("seat", opened.table);
  const asked = !held && store.record("join", opened.table);
  const hosted = !held && view.status !== "cancelled" && store.record("host", opened.table);
  // A table cancelled while the page was away needs no record of its lobby.
  for (const kind of ["host", "bots"]) {
    if (view.status === "cancelled" && store.record(kind, opened.table)) keepRecord(kind, opened.table, null);
  }
  const kept = held || asked || hosted;
  $("sit").hidden = playing !== null || hosting !== null || !(open || view.status === "starting" || kept);
  $("sit-down").textContent = hosted ? "Take your table back" : kept ? "Take your seat back" : "Sit down";
  $("sit-down").onclick = () =>
    held ? resumeSeat(opened, current.events)
      : hosted ? resumeHost(opened, hosted)
        : asked ? sitDown(opened, { record: asked, events: [...current.events] })
          : sitDown(opened);
  $("check").onclick = () => checkTable(opened, current.events);
  $("table").hidden = false;
}

// Opens the table a link names, and follows its announcement while the page shows it.
async function openTable(text) {
  clearError();
  if (current) current.close();
  current = null;
  $("table").hidden = true;
  $("verdict").hidden = true;
  delete document.body.dataset.table;
  delete document.body.dataset.verdict;
  let opened;
  try {
    opened = JSON.parse(core.open_table(text, JSON.stringify(await defaultRelays())));
  } catch (e) {
    fail(e.message || String(e));
    say("");
    return;
  }
  say(`Asking ${opened.relays.join(", ")} for the table…`);
  const events = [];
  let shown = 0;
  const refresh = async () => {
    const mine = ++shown;
    let view;
    try {
      view = JSON.parse(core.read_table(JSON.stringify(opened), JSON.stringify(events)));
    } catch (e) {
      return e.message || String(e);
    }
    const people = await names(opened.relays, view.players);
    if (mine === shown) renderTable(view, opened, people);
    return null;
  };
  let settled = false;
  const q = query(
    opened.relays,
    opened.filter,
    (e) => {
      events.push(e);
      if (settled) refresh();
    },
    true,
  );
  current = { close: q.close, events };
  const faults = await q.done;
  settled = true;
  const problem = await refresh();
  if (problem) {
    fail(faults.length ? `${problem} (${faults.join("; ")})` : problem);
    say("");
  } else {
    say(faults.length ? `Shown from the relays that answered (${faults.join("; ")}).` : "The table, as its host signed it.");
    document.body.dataset.table = "shown";
  }
}

function fromHash() {
  const h = decodeURIComponent(location.hash.slice(1));
  if (h) {
    $("link").value = h;
    openTable(h);
  }
}

// The person's own key, for a browser without a signer extension: the core makes, imports and
// opens it (NIP-49); this keeps the encrypted key and its npub in localStorage, and the
// encrypted key for this visit only when the browser will not keep it.
const KEPT = "tolerance.key.ncryptsec";
const KEPT_NPUB = "tolerance.key.npub";
let visitOnly = null;

function keptKey() {
  // A key the browser refused to keep is the one in use, whatever an older visit left stored.
  if (visitOnly) return visitOnly;
  try {
    const ncryptsec = localStorage.getItem(KEPT);
    if (ncryptsec) return { ncryptsec, npub: localStorage.getItem(KEPT_NPUB) || "" };
  } catch {
    // Storage switched off: no key kept.
  }
  return null;
}

// Keeps `made` ({npub, ncryptsec}); says so in words when the browser refuses.
function keep(made) {
  visitOnly = { ncryptsec: made.ncryptsec, npub: made.npub };
  try {
    localStorage.setItem(KEPT, made.ncryptsec);
    localStorage.setItem(KEPT_NPUB, made.npub);
    visitOnly = null;
  } catch (e) {
    const why = e && e.name === "QuotaExceededError" ? "its storage is full" : "its storage is switched off";
    fail(`This browser would not keep your key (${why}). It is unlocked for this visit only: ` +
      "export it now (Show my ncryptsec) or it is lost when the page closes.");
  }
}

function forgetKept() {
  visitOnly = null;
  try {
    localStorage.removeItem(KEPT);
    localStorage.removeItem(KEPT_NPUB);
  } catch {
    // Nothing was kept.
  }
}

function hideExport() {
  $("export").hidden = true;
  $("export").value = "";
  $("export-note").hidden = true;
}

// Puts the key's state on screen: none, kept and locked, or unlocked (then with its profile's
// name when the relays know one).
// Who the person is, and what is addressed to them.
async function showYou() {
  showInvitations();
  await showKey();
}

async function showKey() {
  const signer = core.signer_identity();
  $("signer-use").hidden = !!signer;
  $("signer-stop").hidden = !signer;
  // With an extension the page keeps no key of its own in view: each table gets a key of its
  // own that the extension approves once.
  for (const id of ["key-make", "key-unlock", "key-held", "import-box", "forget", "forget-sure"]) {
    if (signer) $(id).hidden = true;
  }
  if (signer) {
    hideExport();
    const me = JSON.parse(signer);
    $("you-status").textContent = `You sign with your extension: ${me.npub}. Each table asks it ` +
      "once to approve a key this page makes to play that seat.";
    const relays = await defaultRelays();
    if (relays.length === 0) return;
    const [n] = await names(relays, [me.hex]);
    if (n && n.named && core.signer_identity() === signer) {
      $("you-status").textContent = `You are ${n.name}, signing with your extension: ${me.npub}. ` +
        "Each table asks it once to approve a key this page makes to play that seat.";
    }
    return;
  }
  $("import-box").hidden = false;
  const unlocked = core.key_unlocked();
  const kept = keptKey();
  $("key-make").hidden = !!(unlocked || kept);
  $("key-unlock").hidden = !!unlocked || !kept;
  $("key-held").hidden = !unlocked;
  $("forget").hidden = !kept;
  $("forget-sure").hidden = true;
  if (!unlocked) hideExport();
  if (unlocked) {
    const me = JSON.parse(unlocked);
    $("you-status").textContent = `Your key is unlocked: ${me.npub}`;
    const relays = await defaultRelays();
    if (relays.length === 0) return;
    const [n] = await names(relays, [me.hex]);
    if (n && n.named && core.key_unlocked() === unlocked) {
      $("you-status").textContent = `You are ${n.name}: ${me.npub}`;
    }
  } else if (kept) {
    $("you-status").textContent = `Your key is kept in this browser, locked${kept.npub ? `: ${kept.npub}` : ""}.`;
  } else {
    $("you-status").textContent =
      "No key in this browser yet. Make one to sit at a table, or import yours.";
  }
}

// Runs a key operation (scrypt takes about a second) after the page has said so.
async function withKey(doing, work) {
  clearError();
  say(doing);
  await new Promise((r) => setTimeout(r, 30));
  try {
    work();
    say("Ready.");
  } catch (e) {
    say("Ready.");
    fail(e.message || String(e));
  }
  await showYou();
}

// The NIP-07 extension, if the browser has one (extensions may add it after the page loads).
function extension() {
  return window.nostr && typeof window.nostr.signEvent === "function" ? window.nostr : null;
}

function wireKey() {
  // The seat in play keeps the key it sat down with: no switching signers under it.
  const busy = () => {
    if (!playing) return false;
    fail("Finish or leave your table first: its seat is held by the key it sat down with.");
    return true;
  };
  $("signer-use").addEventListener("click", async () => {
    clearError();
    if (busy()) return;
    const ext = extension();
    if (!ext) {
      fail("No signer extension answers on this page (NIP-07, window.nostr): add one to this " +
        "browser, or make a key here.");
      return;
    }
    try {
      core.signer_use(String(await ext.getPublicKey()));
    } catch (e) {
      fail(`Your signer extension did not say which key is yours: ${e.message || e}`);
      return;
    }
    await showYou();
  });
  $("signer-stop").addEventListener("click", () => {
    if (busy()) return;
    core.signer_forget();
    clearError();
    showYou();
  });
  $("key-make").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const password = $("make-password").value;
    if (password !== $("make-again").value) {
      fail("The two passwords differ: type the same one twice.");
      return;
    }
    withKey("Making your key…", () => {
      keep(JSON.parse(core.key_make(password)));
      $("make-password").value = "";
      $("make-again").value = "";
    });
  });
  $("key-unlock").addEventListener("submit", (ev) => {
    ev.preventDefault();
    withKey("Unlocking your key…", () => {
      const kept = keptKey();
      if (!kept) {
        throw new Error("No key is kept in this browser any more (its storage may have been " +
          "cleared): import yours, or make a new one.");
      }
      core.key_unlock(kept.ncryptsec, $("unlock-password").value);
      $("unlock-password").value = "";
    });
  });
  $("key-import").addEventListener("submit", (ev) => {
    ev.preventDefault();
    withKey("Importing your key…", () => {
      keep(JSON.parse(core.key_import($("import-key").value, $("import-password").value)));
      $("import-key").value = "";
      $("import-password").value = "";
      $("import-box").open = false;
    });
  });
  $("show-nsec").addEventListener("click", () => {
    clearError();
    try {
      $("export").value = core.key_export_nsec();
    } catch (e) {
      fail(e.message || String(e));
      return;
    }
    $("export-note").textContent = "Your secret key, in the clear: whoever sees it can play as " +
      "you. Keep it somewhere safe, and hide it again with Lock.";
    $("export-note").hidden = false;
    $("export").hidden = false;
  });
  $("show-ncryptsec").addEventListener("click", () => {
    clearError();
    const kept = keptKey();
    if (!kept) {
      fail("No key is kept in this browser any more (its storage may have been cleared): " +
        "Show my nsec still exports the unlocked key.");
      return;
    }
    $("export").value = kept.ncryptsec;
    $("export-note").textContent = "Your key, encrypted with its password (NIP-49): this page " +
      "and Nostr clients that read NIP-49 take it back with that password. The terminal " +
      "takes your nsec: tolerance keys import nsec1…";
    $("export-note").hidden = false;
    $("export").hidden = false;
  });
  $("lock").addEventListener("click", () => {
    core.key_lock();
    clearError();
    showYou();
  });
  $("forget").addEventListener("click", () => {
    $("forget").hidden = true;
    $("forget-sure").hidden = false;
    $("forget-sure").focus();
  });
  $("forget-sure").addEventListener("click", () => {
    core.key_lock();
    forgetKept();
    clearError();
    showYou();
  });
}

async function main() {
  try {
    await init();
  } catch (e) {
    fail(`This browser could not start the page's core (WebAssembly): ${e.message || e}`);
    return;
  }
  // Said when a seat is taken (keepRecord); the page works without storage.
  const unkept = await store.load();
  if (unkept) console.warn(unkept);
  window.kept = store.all;
  // Proofs of work are made in a worker where the browser has workers (mineOffPage, and the
  // seat's prover), not on the page's thread.
  if (typeof Worker === "function") core.mine_elsewhere(true);
  showGames();
  wireKey();
  wireSeat();
  wireHost();
  showYou();
  showLobby();
  $("refresh").addEventListener("click", () => {
    showLobby();
    showInvitations();
  });
  $("invitations-read").addEventListener("click", () => showInvitations(true));
  showFeedbackTo();
  $("feedback-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sendFeedback();
  });
  say("Paste a table's naddr1… link, or pick a game to learn about it.");
  document.body.dataset.ready = "yes";
  $("open").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("link").value.trim();
    if (location.hash.slice(1) === text) openTable(text);
    else location.hash = text;
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
}

main();
