'use strict';
/**
 * Webhooks of deployment requests, like the live service (deployments only; the Model API and the trainer
 * have none). A request submitted with `webhook` (query parameter, or the legacy body field) gets its final
 * event (succeeded / failed / cancelled) POSTed as JSON; with `webhook_intermediate_status=true` also
 * `in_queue` (at submission) and `in_progress` (when it starts).
 *
 * Runs have no timers of their own (runs.js computes their states from timestamps), so one watcher timer
 * wakes at the next transition of any watched run, and every schedule change (submit, cancel, config)
 * re-arms it. Delivery (loopback only, retries, duplicates, out-of-order) is in webhook-delivery.js.
 */
const { runState, scheduleEntry } = require('./runs');
const { WebhookSender, redactUrl } = require('./webhook-delivery');

const FINAL_STATES = new Set(['completed', 'cancelled']);

const lastOf = (v) => (Array.isArray(v) ? v[v.length - 1] : v);

/** `{ url, intermediate }` from the query (preferred) or the legacy body fields; null without a webhook. */
function webhookRequest(query, body) {
	const fromBody = body && typeof body === 'object' ? body : {};
	const url = lastOf(query.webhook) ?? (typeof fromBody.webhook === 'string' ? fromBody.webhook : undefined);
	if (url === undefined || !String(url).trim()) return null;
	const flag =
		query.webhook_intermediate_status !== undefined ? lastOf(query.webhook_intermediate_status) : fromBody.webhook_intermediate_status;
	return { url: String(url).trim(), intermediate: flag === true || ['true', '1'].includes(String(flag).toLowerCase()) };
}

class Webhooks {
	constructor(sb) {
		this.sb = sb;
		this.sender = new WebhookSender(sb);
		/** run id -> { run, hook, describe, emitted: Set } for runs whose final event is still to come. */
		this.watched = new Map();
		this.timer = null;
		this.immediate = null;
		this.closed = false;
	}

	/**
	 * Watches a run. `describe(sb, run, event, state)` builds an event body; `event` is 'in_queue',
	 * 'in_progress' or 'final'.
	 */
	track(run, hook, describe) {
		run.webhook = redactUrl(hook.url).href;
		this.watched.set(run.id, { run, hook, describe, emitted: new Set() });
		this.wake();
	}

	/** Re-checks the watched runs soon (after the current handler has finished building the run). */
	wake() {
		if (this.closed || this.immediate || this.watched.size === 0) return;
		this.immediate = setImmediate(() => {
			this.immediate = null;
			this.pump();
		});
	}

	pump() {
		clearTimeout(this.timer);
		this.timer = null;
		const now = Date.now();
		let next = Infinity;
		for (const w of this.watched.values()) {
			const st = runState(this.sb, w.run, now);
			if (w.hook.intermediate) {
				this.emit(w, 'in_queue', st);
				if (st.startedAt != null) this.emit(w, 'in_progress', st);
			}
			if (FINAL_STATES.has(st.status)) {
				this.emit(w, 'final', st);
				this.watched.delete(w.run.id);
				continue;
			}
			const e = scheduleEntry(this.sb, w.run);
			next = Math.min(next, e.start != null && now < e.start ? e.start : e.end);
		}
		if (next === Infinity) return;
		// +1 ms: a timer may fire a fraction of a millisecond early, before the state has changed.
		this.timer = setTimeout(() => this.pump(), Math.max(1, next - Date.now() + 1));
		this.timer.unref();
	}

	emit(w, event, st) {
		if (w.emitted.has(event)) return;
		w.emitted.add(event);
		const body = w.describe(this.sb, w.run, event, st);
		this.sender.enqueue({
			url: w.hook.url,
			requestId: w.run.id,
			deploymentId: w.run.target,
			status: body.status,
			final: event === 'final',
			body,
		});
	}

	/** Forgets every watched run and pending delivery (reset). */
	clear() {
		clearTimeout(this.timer);
		clearImmediate(this.immediate);
		this.timer = null;
		this.immediate = null;
		this.watched.clear();
		this.sender.clear();
	}

	close() {
		this.closed = true;
		this.clear();
		this.sender.close();
	}
}

module.exports = { Webhooks, webhookRequest };
