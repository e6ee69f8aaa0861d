// Headless Chromium driven over the DevTools protocol by hand, for the
// memory benchmarks. Playwright enables the Network domain on the page and
// on every worker, and DevTools then keeps each response body in the
// renderer for inspection (up to its buffer limits): hundreds of MB over a
// fleet of downloads, which users' browsers never hold. Here only the
// Runtime domain is used, so what the renderer holds is the page's own.
//
// The protocol runs over --remote-debugging-pipe (fd 3 in, fd 4 out, each
// message ended by a NUL byte): no WebSocket, no port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS } from './serve.mjs';

export class BareChromium {
  /** Starts Chromium with a fresh profile (its path: `profile`, for /proc lookups). */
  static async launch() {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'd9lens-bare-'));
    const proc = spawn(CHROMIUM, [...CHROMIUM_ARGS, '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    const browser = new BareChromium(proc, profile);
    await browser.send('Target.setDiscoverTargets', { discover: true });
    return browser;
  }

  constructor(proc, profile) {
    this.proc = proc;
    this.profile = profile;
    this.next = 1;
    this.pending = new Map();
    this.listeners = [];
    let buffered = '';
    proc.stdio[4].on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let end;
      while ((end = buffered.indexOf('\0')) >= 0) {
        const msg = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (msg.id !== undefined) {
          const waiter = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          if (msg.error) waiter?.reject(new Error(`${msg.error.message} (${waiter.method})`));
          else waiter?.resolve(msg.result);
        } else {
          for (const listener of this.listeners) listener(msg);
        }
      }
    });
  }

  /** Sends a command to the browser, or to the target of `sessionId`. */
  send(method, params = {}, sessionId = undefined) {
    const id = this.next++;
    this.proc.stdio[3].write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
  }

  /** A new tab at `url`, with its workers attached (paused-free) as they start. */
  async open(url) {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const tab = new BareTab(this, sessionId);
    this.listeners.push((msg) => {
      if (msg.method === 'Target.attachedToTarget' && msg.sessionId === sessionId && msg.params.targetInfo.type === 'worker') {
        tab.workers.push(msg.params.sessionId);
      }
    });
    await this.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, sessionId);
    await this.send('Runtime.enable', {}, sessionId);
    await this.send('Page.navigate', { url }, sessionId);
    return tab;
  }

  async close() {
    await this.send('Browser.close').catch(() => {});
    await new Promise((resolve) => (this.proc.exitCode !== null ? resolve() : this.proc.once('exit', resolve)));
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

/** One tab: evaluate in it, wait for a condition, fill and click by selector. */
class BareTab {
  constructor(browser, sessionId) {
    this.browser = browser;
    this.sessionId = sessionId;
    this.workers = [];
  }

  send(method, params = {}) {
    return this.browser.send(method, params, this.sessionId);
  }

  /** Runs `fn(arg)` in the page (awaited) and returns its JSON value. */
  async evaluate(fn, arg) {
    const { result, exceptionDetails } = await this.send('Runtime.evaluate', {
      expression: `(${fn})(${JSON.stringify(arg ?? null)})`,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return result.value;
  }

  /** Polls `fn(arg)` until it is truthy. */
  async waitFor(fn, arg, timeout = 60_000) {
    const until = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(fn, arg).catch(() => undefined);
      if (value) return value;
      if (Date.now() > until) throw new Error(`timed out waiting for ${fn}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Sets a form field as typing would (an `input` event, then `change`). */
  fill(selector, value) {
    return this.evaluate(
      ([sel, v]) => {
        const el = document.querySelector(sel);
        if (!el) throw new Error(`no ${sel}`);
        el.value = v;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return true;
      },
      [selector, value],
    );
  }

  click(selector) {
    return this.evaluate((sel) => {
      const el = document.querySelector(sel);
      if (!el) throw new Error(`no ${sel}`);
      el.click();
      return true;
    }, selector);
  }
}
