/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * Helpers of the real-n8n trigger tests (./trigger.test.ts): waiting on n8n's REST API, publishing, executions,
 * renaming a node as the editor does, and POSTing webhook deliveries the way RunComfy does. Not a test file.
 */
import * as h from '../../scripts/e2e/n8n';
import type { ExecutionItem, ExecutionSummary, N8nInstance, RunJson } from '../../scripts/e2e/n8n';

export interface Answer {
	status: number;
	body: Record<string, unknown>;
}

/** The helpers, bound to the running n8n (`n8n()` is read at each call, so a restarted instance is used). */
export function triggerKit(n8n: () => N8nInstance) {
	/** Polls n8n's REST API (250 ms apart, bounded) until `done` holds; fails with the last value. */
	async function waitFor<T>(what: string, fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 60000): Promise<T> {
		const deadline = Date.now() + timeoutMs;
		let last: T | undefined;
		for (;;) {
			last = await fn();
			if (done(last)) return last;
			if (Date.now() > deadline)
				throw new Error(`${what}: not reached in ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${n8n().logs().slice(-3000)}`);
			await new Promise((r) => setTimeout(r, 250));
		}
	}

	const isDone = (e: ExecutionSummary) => !['new', 'running', 'waiting', 'unknown'].includes(e.status);

	/** Every execution of the workflow (n8n lists at most 100 per page; the pages are followed by their cursor). */
	async function allExecutions(workflowId: string): Promise<ExecutionSummary[]> {
		const out: ExecutionSummary[] = [];
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		let cursor: string | undefined;
		do {
			const page = (await n8n().rest.get(
				`/rest/executions?limit=100&filter=${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
			)) as {
				results?: ExecutionSummary[];
				nextCursor?: string | null;
			};
			out.push(...(page.results ?? []));
			cursor = page.nextCursor ?? undefined;
		} while (cursor);
		return out;
	}

	/** The workflow's executions, oldest first, once `count` of them exist and all have ended. */
	async function executionsOf(workflowId: string, count: number): Promise<ExecutionSummary[]> {
		const list = await waitFor(
			`${count} finished execution(s) of workflow ${workflowId}`,
			async () => await allExecutions(workflowId),
			(l) => l.length >= count && l.every(isDone),
		);
		return [...list].sort((a, b) => Number(a.id) - Number(b.id));
	}

	function items(run: RunJson, node: string, output = 0): ExecutionItem[] {
		const list = h.nodeItems(run, node, { output });
		if (!list)
			throw new Error(
				`node "${node}" has no output ${output} in the execution: ${JSON.stringify(Object.keys(run.data.resultData.runData))}`,
			);
		return list;
	}

	/**
	 * Publishes the workflow as the editor does and waits until n8n 2.41's publication (asynchronous, through its
	 * outbox) has settled with the trigger activated, which includes the activation poll.
	 */
	async function publish(workflowId: string): Promise<void> {
		const activated = await n8n().rest.activateWorkflow(workflowId);
		expect(activated.active).toBe(true);
		const st = await n8n().rest.waitForPublication(workflowId, { versionId: activated.versionId });
		expect(st.status).toBe('published');
		expect(st.triggers.map((t) => [t.status, t.errorMessage ?? null])).toEqual([['activated', null]]);
	}

	async function unpublish(workflowId: string): Promise<void> {
		await n8n().rest.deactivateWorkflow(workflowId);
		const st = await n8n().rest.waitForPublication(workflowId);
		expect(st.status).toBe('not_published');
	}

	/** Renames a node as the editor does (the node and its connections), and saves the workflow. */
	async function renameNode(workflowId: string, from: string, to: string): Promise<void> {
		const stored = await n8n().rest.getWorkflow(workflowId);
		const nodes = stored.nodes.map((n) => (n.name === from ? { ...n, name: to } : n));
		const connections = JSON.parse(JSON.stringify(stored.connections).split(JSON.stringify(from)).join(JSON.stringify(to))) as Record<
			string,
			unknown
		>;
		await n8n().rest.patch(`/rest/workflows/${encodeURIComponent(workflowId)}`, { versionId: stored.versionId, nodes, connections });
		expect((await n8n().rest.getWorkflow(workflowId)).nodes.map((n) => n.name)).toContain(to);
	}

	/**
	 * POSTs a delivery the way RunComfy does: a non-2xx answer or a failed connection is retried with exponential
	 * backoff (RunComfy keeps trying for 24 h; here at most 10 tries). Under 200 parallel deliveries n8n on SQLite
	 * answers some with 503 ("Database is not ready!") until it catches up.
	 */
	async function postDelivery(url: string, body: unknown): Promise<Answer & { tries: number }> {
		let last: Answer = { status: 0, body: {} };
		for (let tries = 1; ; tries++) {
			try {
				const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
				const text = await res.text();
				let parsed: Record<string, unknown>;
				try {
					parsed = JSON.parse(text) as Record<string, unknown>;
				} catch {
					parsed = { text };
				}
				last = { status: res.status, body: parsed };
			} catch (error) {
				last = { status: 0, body: { error: String(error) } };
			}
			// A 404 is final here: the tests expect it only for a wrong token.
			if ((last.status >= 200 && last.status < 300) || last.status === 404 || tries >= 10) return { ...last, tries };
			await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** tries, 3000)));
		}
	}

	return { waitFor, allExecutions, executionsOf, items, publish, unpublish, renameNode, postDelivery };
}
