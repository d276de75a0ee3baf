// What the browser keeps of the seats this page plays, so that a reload takes them back: one
// record per table and kind (a seat asked for, a seat held, a table hosted, the bots run there,
// each bot's seat), in IndexedDB. The page reads every record once when it starts (`load`) and
// then from memory, so drawing a table never waits on storage; a write (`keep`) changes memory
// at once and resolves once the browser has stored it, which the page waits for before it
// publishes what the record covers. A bot's worker loads and keeps its own seat's record the
// same way (each writes only its own records).
//
// Records kept by an older page in localStorage are moved here on the first load.

const DB = "tolerance";
const OPEN_PATIENCE_MS = 3000;
const STORE = "records";
const kept = new Map();
let db = null;
let why = "";

function open() {
  return new Promise((ok, no) => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => r.result.createObjectStore(STORE);
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
    r.onblocked = () => no(new Error("another tab holds an older version of the page's storage"));
  });
}

// One transaction on the store: `work(store)` makes its requests; resolves once it committed.
function transact(mode, work) {
  return new Promise((ok, no) => {
    const tx = db.transaction(STORE, mode);
    const result = work(tx.objectStore(STORE));
    tx.oncomplete = () => ok(result);
    tx.onerror = () => no(tx.error);
    tx.onabort = () => no(tx.error || new Error("the browser gave up storing it"));
  });
}

// Opens the storage and reads every record into memory; "" when it worked, else why not in
// words (the page then plays on without keeping anything).
export async function load() {
  try {
    // A browser whose storage never answers must not hold the page: it plays on without.
    db = await Promise.race([
      open(),
      new Promise((_, no) => setTimeout(() => no(new Error("it did not answer")), OPEN_PATIENCE_MS)),
    ]);
    // Another tab upgrading or clearing the page's storage is let through.
    db.onversionchange = () => {
      db.close();
      db = null;
      why = "the page's storage was cleared or upgraded in another tab";
    };
    await transact("readonly", (s) => {
      const cursor = s.openCursor();
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c) return;
        kept.set(String(c.key), String(c.value));
        c.continue();
      };
    });
    why = "";
  } catch (e) {
    db = null;
    why = `its storage is unavailable (${words(e)})`;
  }
  await moveOld();
  return why;
}

// Records an older page kept in localStorage: moved into IndexedDB one by one (a record that
// cannot be moved stays where it is), or only read when IndexedDB is unavailable, so that the
// seat is still offered back.
async function moveOld() {
  let old = [];
  try {
    old = Object.keys(localStorage).filter((k) => k.startsWith("tolerance.seat."));
  } catch {
    return;
  }
  for (const k of old) {
    const table = k.slice("tolerance.seat.".length);
    const text = localStorage.getItem(k);
    if (!db) {
      if (!kept.has(key("seat", table))) kept.set(key("seat", table), text);
      continue;
    }
    try {
      if (!kept.has(key("seat", table))) await keep("seat", table, text);
      localStorage.removeItem(k);
    } catch {
      // Left in localStorage, and read from there next time.
    }
  }
}

const key = (kind, table) => `${kind}.${table}`;

function words(e) {
  const name = e && e.name;
  if (name === "QuotaExceededError") return "its storage for this page is full";
  if (name === "SecurityError" || name === "InvalidStateError") return "its storage is switched off";
  return (e && e.message) || String(e);
}

// The record of `kind` ("join", "seat", "host", "bots", "bot-<key>") at `table`, or "".
export function record(kind, table) {
  return kept.get(key(kind, table)) || "";
}

// Keeps `text` as the record of `kind` at `table` (null: drops it). Resolves once stored, or
// rejects with why not in words; memory holds the new record either way, so this visit goes on.
export function keep(kind, table, text) {
  const k = key(kind, table);
  if (text === null) kept.delete(k);
  else kept.set(k, text);
  if (!db) return Promise.reject(new Error(why || "its storage is unavailable"));
  return transact("readwrite", (s) => (text === null ? s.delete(k) : s.put(text, k))).catch((e) => {
    throw new Error(words(e));
  });
}

// Every record kept, by key (for tests and scripts).
export function all() {
  return Object.fromEntries(kept);
}
