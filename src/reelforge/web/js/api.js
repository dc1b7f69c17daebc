// The game server's HTTP API: bearer token, Idempotency-Key per intent, retries after a
// lost connection with the SAME key (so a retry never spins twice), and typed errors.

const BASE = "/api/v1";

/** A 4xx/5xx reply from the server: {"error": {"code", "message"}}. */
export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message || code);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter; // seconds, from Retry-After (429 too_soon)
  }
}

/** A fresh Idempotency-Key: one per player intent (a spin, a pick, a stop...). */
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes); // works outside secure contexts too, unlike randomUUID
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One intent: a POST with its body and its key, fixed once, sent until it gets an answer. */
export class Intent {
  constructor(path, body = null, key = newKey()) {
    this.path = path;
    this.body = body;
    this.key = key;
  }
}

const RETRYABLE_STATUS = new Set([502, 503, 504]);

export class Api {
  /**
   * @param {object} hooks
   *   connectionLost({attempt, retry}) -> Promise resolved when the client should retry
   *     (the UI shows "connection lost" with a retry button and an automatic countdown).
   *   connectionBack() -> called once a request gets through again.
   */
  constructor(hooks = {}) {
    this.token = null;
    this.hooks = hooks;
    this.lost = false;
  }

  setToken(token) {
    this.token = token;
  }

  headers(key) {
    const h = { Accept: "application/json" };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    if (key) h["Idempotency-Key"] = key;
    return h;
  }

  get(path) {
    return this.request("GET", path, undefined, null);
  }

  /** POST an intent (or a path and body with a new key); retried with the same key. */
  post(pathOrIntent, body = null) {
    const intent = pathOrIntent instanceof Intent ? pathOrIntent : new Intent(pathOrIntent, body);
    return this.request("POST", intent.path, intent.body, intent.key);
  }

  async request(method, path, body, key) {
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        const init = { method, headers: this.headers(key), cache: "no-store" };
        if (body !== undefined && body !== null) {
          init.body = JSON.stringify(body);
          init.headers["Content-Type"] = "application/json";
        }
        res = await fetch(BASE + path, init);
      } catch (err) {
        // The request may or may not have reached the server: retry with the same key.
        await this.waitForRetry(attempt, path);
        continue;
      }
      if (RETRYABLE_STATUS.has(res.status)) {
        await this.waitForRetry(attempt, path);
        continue;
      }
      let data = null;
      try {
        data = await res.json();
      } catch (err) {
        if (res.ok) throw new ApiError(res.status, "bad_reply", "the server sent an unreadable reply");
      }
      if (this.lost) {
        this.lost = false;
        this.hooks.connectionBack?.();
      }
      if (!res.ok) {
        const e = (data && data.error) || {};
        const ra = res.headers.get("Retry-After");
        throw new ApiError(res.status, e.code || `http_${res.status}`, e.message || res.statusText,
          ra ? Number(ra) : null);
      }
      return data;
    }
  }

  async waitForRetry(attempt, path) {
    this.lost = true;
    if (this.hooks.connectionLost) {
      await this.hooks.connectionLost({ attempt, path });
    } else {
      await new Promise((r) => setTimeout(r, Math.min(15000, 1000 * 2 ** attempt)));
    }
  }
}
