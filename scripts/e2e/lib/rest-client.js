'use strict';
/** Minimal client of n8n's internal REST API (what the editor calls), for a running `n8n start`. */
const crypto = require('crypto');
const http = require('http');
const path = require('path');

const { N8N_VERSION, CACHE_DIR, CREDENTIAL_TYPE, DEFAULT_OWNER } = require('./constants');

// One connection per request. Node's global agent keeps sockets alive, and a request sent on a socket the
// server is just closing after its keep-alive timeout fails with "socket hang up" (seen on a loaded machine
// when a test paused a few seconds between two calls).
const agent = new http.Agent({ keepAlive: false });

/** Minimal HTTP client (JSON, cookie jar) for n8n's internal REST API. */
class RestClient {
	constructor(baseUrl) {
		this.baseUrl = baseUrl.replace(/\/+$/, '');
		this.cookies = new Map();
		this.browserId = crypto.randomUUID();
	}

	cookieHeader() {
		return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
	}

	async request(method, urlPath, body, { headers = {}, raw = false } = {}) {
		const url = new URL(urlPath, `${this.baseUrl}/`);
		const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
		const res = await new Promise((resolve, reject) => {
			const req = http.request(
				url,
				{
					method,
					agent,
					headers: {
						accept: 'application/json',
						'browser-id': this.browserId,
						...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
						...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
						...headers,
					},
				},
				(r) => {
					const chunks = [];
					r.on('data', (c) => chunks.push(c));
					r.on('end', () => resolve({ status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks) }));
					r.on('error', reject);
				},
			);
			req.on('error', reject);
			if (payload) req.write(payload);
			req.end();
		});
		for (const c of [].concat(res.headers['set-cookie'] || [])) {
			const [pair] = c.split(';');
			const eq = pair.indexOf('=');
			this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
		}
		if (raw) return res;
		const text = res.body.toString('utf8');
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		if (res.status >= 400) {
			const err = new Error(`${method} ${urlPath} -> HTTP ${res.status}: ${text.slice(0, 2000)}`);
			err.status = res.status;
			err.body = json !== undefined ? json : text;
			throw err;
		}
		// n8n's REST wraps payloads in { data }.
		return json && typeof json === 'object' && 'data' in json ? json.data : json;
	}

	get(p, opts) {
		return this.request('GET', p, undefined, opts);
	}

	post(p, body, opts) {
		return this.request('POST', p, body === undefined ? {} : body, opts);
	}

	patch(p, body, opts) {
		return this.request('PATCH', p, body, opts);
	}

	/** Creates the owner account on a fresh instance (POST /rest/owner/setup); logs in otherwise. */
	async setupOwner(owner = DEFAULT_OWNER) {
		try {
			await this.post('/rest/owner/setup', owner);
		} catch (err) {
			if (err.status !== 400 && err.status !== 403) throw err;
		}
		return this.login(owner);
	}

	/** POST /rest/login: sets the `n8n-auth` cookie. */
	async login(owner = DEFAULT_OWNER) {
		return this.post('/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}

	/** Creates a credential through POST /rest/credentials (what the editor's credential dialog does). */
	async createCredential(cred) {
		return this.post('/rest/credentials', { name: cred.name, type: cred.type, data: cred.data });
	}

	/** POST /rest/credentials/test — the editor's "Test"/"Retest" button. */
	async testCredential(cred) {
		return this.post('/rest/credentials/test', { credentials: { id: cred.id, name: cred.name, type: cred.type, data: cred.data } });
	}

	/**
	 * POST /rest/dynamic-node-parameters/resource-locator-results — what the editor calls to fill a
	 * resource locator's "From list" dropdown (and again, with `filter`, as the user types).
	 */
	async resourceLocatorResults({ nodeType, version = 1, path: paramPath, methodName, parameters, credential, filter }) {
		return this.post('/rest/dynamic-node-parameters/resource-locator-results', {
			nodeTypeAndVersion: { name: nodeType, version },
			path: paramPath,
			methodName,
			currentNodeParameters: parameters || {},
			credentials: credential ? { [credential.type || CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } } : undefined,
			...(filter !== undefined ? { filter } : {}),
		});
	}

	/** POST /rest/dynamic-node-parameters/resource-mapper-fields — the fields of a resourceMapper parameter. */
	async resourceMapperFields({ nodeType, version = 1, path: paramPath, methodName, parameters, credential }) {
		return this.post('/rest/dynamic-node-parameters/resource-mapper-fields', {
			nodeTypeAndVersion: { name: nodeType, version },
			path: paramPath,
			methodName,
			currentNodeParameters: parameters || {},
			credentials: credential ? { [credential.type || CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } } : undefined,
		});
	}

	/**
	 * Saves a new workflow as the editor does (POST /rest/workflows): a workflow object as prepareWorkflow() returns
	 * it (the id it carries is kept). Resolves with the stored workflow. Costs no n8n CLI process, unlike importWorkflow().
	 */
	async createWorkflow(workflow) {
		return this.post('/rest/workflows', workflow);
	}

	/**
	 * Runs a saved workflow as the editor's "Execute workflow" button does (POST /rest/workflows/:id/run, a manual
	 * execution from its first trigger node) and waits until it has ended. Resolves with the
	 * execution as getExecution() gives it; fails when n8n started none or it did not end within `timeoutMs`.
	 */
	async runManually(workflowId, { timeoutMs = 4 * 60 * 1000 } = {}) {
		const workflowData = await this.getWorkflow(workflowId);
		const name = workflowData.nodes.find((n) => /trigger$/i.test(n.type))?.name;
		// n8n 1.x runs the workflow the editor sends; 2.x runs the saved one and ignores it.
		const started = await this.post(`/rest/workflows/${encodeURIComponent(workflowId)}/run`, {
			workflowData,
			triggerToStartFrom: { name },
		});
		if (!started || !started.executionId) throw new Error(`n8n started no execution of workflow ${workflowId}: ${JSON.stringify(started)}`);
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const exec = await this.getExecution(started.executionId).catch((error) => {
				// Not stored yet: n8n saves a manual execution once it has begun.
				if (error.status === 404) return undefined;
				throw error;
			});
			// n8n 1.x on SQLite writes the final status before the final data: wait for both.
			const result = exec && exec.data && exec.data.resultData;
			const ended = exec && !['new', 'running', 'waiting', 'unknown'].includes(exec.status);
			if (ended && result && (result.lastNodeExecuted || result.error)) return exec;
			if (Date.now() > deadline)
				throw new Error(
					`execution ${started.executionId} of workflow ${workflowId} did not end in ${timeoutMs} ms: ${exec && exec.status}`,
				);
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	/** GET /rest/workflows/:id — the stored workflow (nodes, versionId, activeVersionId, active, staticData...). */
	async getWorkflow(workflowId) {
		return this.get(`/rest/workflows/${encodeURIComponent(workflowId)}`);
	}

	/**
	 * Publishes (activates) a workflow as the editor's "Publish" button does: POST /rest/workflows/:id/activate
	 * with the current versionId. n8n registers its triggers before answering; a polling trigger runs its first
	 * poll then (an error there fails the call with the trigger's message).
	 */
	async activateWorkflow(workflowId) {
		const version = (await this.getWorkflow(workflowId)).versionId;
		return this.post(`/rest/workflows/${encodeURIComponent(workflowId)}/activate`, { versionId: version });
	}

	/**
	 * GET /rest/workflows/:id/publication-status (n8n 2.x publication service):
	 * { status: 'in_progress'|'published'|'partial'|'failed'|'not_published', liveVersionId, pendingVersionId,
	 *   triggers: [{ nodeId, status, errorMessage }] }.
	 */
	async publicationStatus(workflowId) {
		return this.get(`/rest/workflows/${encodeURIComponent(workflowId)}/publication-status`);
	}

	/**
	 * Waits until a publication has settled (n8n 2.41 activates through an outbox, after the activate call
	 * answered): status no longer 'in_progress' and, when given, `liveVersionId` is that version. Resolves with
	 * the status; a failed publication resolves too (its `triggers[].errorMessage` says why). With `versionId`,
	 * 'not_published' is not taken as settled: n8n reads the outbox and the trigger statuses in two queries, so
	 * a publication that completes between them reads as neither in progress nor published.
	 */
	async waitForPublication(workflowId, { versionId, timeoutMs = 60000 } = {}) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const st = await this.publicationStatus(workflowId);
			const settled = st && st.status !== 'in_progress' && !st.pendingVersionId && !(versionId && st.status === 'not_published');
			if (settled && (st.status !== 'published' || !versionId || st.liveVersionId === versionId)) return st;
			if (Date.now() > deadline)
				throw new Error(`publication of workflow ${workflowId} did not settle in ${timeoutMs} ms: ${JSON.stringify(st)}`);
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	/** POST /rest/workflows/:id/deactivate — unpublishes: the triggers stop (the static data is kept). */
	async deactivateWorkflow(workflowId) {
		return this.post(`/rest/workflows/${encodeURIComponent(workflowId)}/deactivate`, {});
	}

	/**
	 * GET /rest/executions — the executions list of the editor (newest first), optionally for one workflow:
	 * [{ id, workflowId, mode, status, finished, startedAt, stoppedAt, ... }].
	 */
	async listExecutions({ workflowId, limit = 100 } = {}) {
		const filter = workflowId ? `&filter=${encodeURIComponent(JSON.stringify({ workflowId }))}` : '';
		const res = await this.get(`/rest/executions?limit=${limit}${filter}`);
		return (res && res.results) || [];
	}

	/**
	 * GET /rest/executions/:id with its data decoded (n8n sends it `flatted`-encoded; decoded with n8n's own
	 * copy of flatted): { id, status, mode, finished, data: { resultData: { runData, error? } }, ... } — the
	 * same shape as `execute()`'s `run`, so nodeItems()/nodeError() work on it.
	 */
	async getExecution(executionId) {
		const exec = await this.get(`/rest/executions/${encodeURIComponent(executionId)}`);
		if (exec && typeof exec.data === 'string') exec.data = flattedParse(exec.data);
		return exec;
	}

	/** POST /rest/dynamic-node-parameters/options — a loadOptions method (options/multiOptions parameters). */
	async loadOptions({ nodeType, version = 1, path: paramPath, methodName, parameters, credential }) {
		return this.post('/rest/dynamic-node-parameters/options', {
			nodeTypeAndVersion: { name: nodeType, version },
			path: paramPath,
			methodName,
			currentNodeParameters: parameters || {},
			credentials: credential ? { [credential.type || CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } } : undefined,
		});
	}
}

/** flatted.parse from the provisioned n8n (it encodes execution data with it); falls back to our own. */
function flattedParse(text) {
	let flatted;
	try {
		flatted = require(path.join(CACHE_DIR, `n8n-${N8N_VERSION}`, 'node_modules', 'flatted'));
	} catch {
		flatted = require('flatted');
	}
	return flatted.parse(text);
}

module.exports = { RestClient };
