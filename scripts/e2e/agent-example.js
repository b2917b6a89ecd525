'use strict';
/**
 * examples/agent-generate-images.json run without a person at the chat: `n8n execute` cannot start at a chat
 * trigger, so a Manual Trigger feeds one chat message in its place, and the agent's OpenAI Chat Model node gets
 * the given credential (the stand-in model of fake-llm.js, or a real one). Used by the agent test and the demo.
 */
const EXAMPLE = require('../../examples/agent-generate-images.json');

/** The stand-in model's script: price the picture, make it, answer with the run's result. */
function agentExampleScript(fakeLlm, modelId, prompt) {
	const call = (name, args) => (req) => {
		const tool = (req.tools || []).find((t) => t.function.name === name.replace(/[^a-zA-Z0-9_-]/g, '_'));
		if (!tool) throw new Error(`no tool ${name} offered to the model`);
		return fakeLlm.callTool(tool.function.name, args);
	};
	return [
		call('Estimate Cost', { model_id: modelId, inputs: JSON.stringify({ prompt }) }),
		call('Run Model', { model_id: modelId, inputs: JSON.stringify({ prompt }) }),
		(req) => fakeLlm.answer(`Here it is: ${fakeLlm.lastToolResult(req)}`),
	];
}

/** A copy of the example that starts with `chatInput` as its chat message, its chat model on `openAi`. */
function agentExampleWorkflow(chatInput, openAi) {
	const wf = JSON.parse(JSON.stringify(EXAMPLE));
	const chat = wf.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger');
	Object.assign(chat, {
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		parameters: { mode: 'raw', jsonOutput: JSON.stringify({ sessionId: 'run', chatInput }), options: {} },
	});
	delete chat.webhookId;
	wf.nodes.push({ parameters: {}, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [-200, 0] });
	wf.connections.Start = { main: [[{ node: chat.name, type: 'main', index: 0 }]] };
	const model = wf.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi');
	model.credentials = { openAiApi: { id: openAi.id, name: openAi.name } };
	return wf;
}

/** An OpenAI credential whose base URL is the stand-in model. */
function standInModelCredential(baseUrl, id) {
	return { id, name: 'Stand-in chat model', type: 'openAiApi', data: { apiKey: 'sk-fake-key-for-tests', url: baseUrl } };
}

module.exports = { agentExampleScript, agentExampleWorkflow, standInModelCredential };
