/**
 * In-process test harness: runs our nodes inside the real n8n engine (n8n-core WorkflowExecute,
 * n8n-workflow expressions on isolated-vm, n8n-core's HTTP helpers and binary data service in
 * filesystem mode). No n8n server, no mocks of the node contexts.
 *
 *   const result = await runNode({ node: new RunComfyModel(), parameters: {...}, credentials });
 *   expect(result.status).toBe('success');
 *   expect(result.items[0].json.request_id).toBe('...');
 *
 * The workflow that runs is `Manual Trigger -> Input Items -> <node under test>`; the middle node
 * emits `inputItems` (binary via n8n's prepareBinaryData), so input binary, expressions such as
 * `{{ $json.prompt }}` and pairedItem behave exactly as in a user's workflow.
 *
 * Set N8N_LOG_LEVEL=debug to see n8n's own log output while debugging a test.
 */
import { registerCleanup } from './engine-runtime';

export { disposeEngine, getRuntime } from './engine-runtime';
export type {
	BinaryInput,
	EditorMethodOptions,
	InputItem,
	PollOptions,
	RunComfyCredentialData,
	RunNodeError,
	RunNodeOptions,
	RunNodeResult,
	WithExecuteContextOptions,
} from './engine-types';
export { runNode, withExecuteContext } from './engine-run';
export { listSearch, loadOptions, resourceMapping, testCredential } from './engine-editor';
export { deliver, poll } from './engine-trigger';

registerCleanup();
