'use strict';
/**
 * A stand-in for an OpenAI-compatible chat model on loopback, scripted per run: n8n's own OpenAI Chat Model
 * node (credential URL pointed here) drives the AI Agent exactly as a user's model would, and every request is
 * recorded, so a test reads the tool list and argument schemas n8n sent to the model. Used by the agent tests
 * (through test/helpers/fakeLlm.ts) and the demo. Types: fake-llm.d.ts.
 *
 * Like the sandbox it imports nothing from nodes/: it answers as the live chat-completions API does (tool calls
 * with JSON-string arguments, `finish_reason`, usage, and server-sent events when `stream` is set).
 *
 *   const llm = await startFakeLlm([
 *     callTool('Estimate_Cost', { prompt: 'a fox' }),
 *     (req) => answer(`cost: ${lastToolResult(req)}`),
 *   ]);
 */
const { createServer } = require('http');

const callTool = (name, args = {}) => ({ toolCalls: [{ name, arguments: args }] });
const answer = (content) => ({ content });

/** The text of a message (string content or the text parts of a content list). */
function textOf(message) {
	if (!message || message.content === null || message.content === undefined) return '';
	if (typeof message.content === 'string') return message.content;
	return message.content.map((part) => part.text || '').join('');
}

/** The tool results the agent has sent back so far, oldest first. */
const toolResults = (request) => request.messages.filter((m) => m.role === 'tool').map(textOf);

/** The last tool result the agent sent back ('' when none). */
const lastToolResult = (request) => toolResults(request).at(-1) || '';

const MODEL = 'gpt-4o-mini';

async function startFakeLlm(steps = []) {
	const requests = [];
	let queue = [...steps];
	let counter = 0;

	const handle = async (req, res) => {
		const path = (req.url || '').split('?')[0];
		if (req.method === 'GET' && /\/models$/.test(path)) {
			return json(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', created: 0, owned_by: 'fake' }] });
		}
		if (req.method !== 'POST' || !/\/chat\/completions$/.test(path)) {
			return json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
		}
		const body = JSON.parse(await readBody(req));
		requests.push(body);
		const step = queue.shift();
		if (!step) {
			return json(res, 500, { error: { message: 'the fake model has no scripted answer left', type: 'server_error' } });
		}
		const reply = typeof step === 'function' ? step(body) : step;
		counter += 1;
		const id = `chatcmpl-fake-${counter}`;
		const message =
			'content' in reply
				? { role: 'assistant', content: reply.content }
				: {
						role: 'assistant',
						content: null,
						tool_calls: reply.toolCalls.map((call, i) => ({
							id: `call_${counter}_${i}`,
							type: 'function',
							function: { name: call.name, arguments: JSON.stringify(call.arguments) },
						})),
					};
		const finish = 'content' in reply ? 'stop' : 'tool_calls';
		const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
		const created = Math.floor(Date.now() / 1000);
		if (!body.stream) {
			return json(res, 200, {
				id,
				object: 'chat.completion',
				created,
				model: body.model,
				choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
				usage,
			});
		}
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
		const chunk = (delta, finishReason, extra = {}) =>
			res.write(
				`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }], ...extra })}\n\n`,
			);
		chunk({ role: 'assistant', content: '' }, null);
		if ('content' in reply) chunk({ content: reply.content }, null);
		else
			(message.tool_calls || []).forEach((call, index) =>
				chunk(
					{
						tool_calls: [
							{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } },
						],
					},
					null,
				),
			);
		chunk({}, finish);
		if (body.stream_options && body.stream_options.include_usage) {
			res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`);
		}
		res.end('data: [DONE]\n\n');
	};

	const server = createServer((req, res) => {
		handle(req, res).catch((error) => json(res, 500, { error: { message: String(error), type: 'server_error' } }));
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		script(next) {
			queue = [...next];
		},
		remaining: () => queue.length,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

function json(res, status, body) {
	if (res.headersSent) {
		res.end();
		return;
	}
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

module.exports = { startFakeLlm, callTool, answer, textOf, toolResults, lastToolResult };
