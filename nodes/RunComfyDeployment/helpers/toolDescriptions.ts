import { STATUS_WORDS, wordList } from '../../shared/status';
import { costNote, toolDescriptionProperties } from '../../shared/toolDescriptions';
import { HARDWARE_SKUS } from '../../shared/transport/types';

const { free, paid } = costNote;

const DEPLOYMENT_ID = 'deployment_id (string: a deployment id from list_deployments)';
const REQUEST = `${DEPLOYMENT_ID}; request_id (string: the request_id the run returned)`;
const HARDWARE = `hardware (string, one of ${HARDWARE_SKUS.join(', ')})`;
const MAX_INSTANCES = 'max_instances (number, 1 to 60)';

/** The Tool Description of each operation (see shared/toolDescriptions.ts). */
export const toolDescriptions = toolDescriptionProperties(
	{
		inference: {
			run: `Runs a deployed ComfyUI workflow on a RunComfy deployment (by deployment id) with the given inputs and waits up to 2 minutes for it. Returns the request_id, the status and the output file URLs; a request still going after the wait comes back with still_running: true, to follow up with Get Status or Get Result. ${paid} Each call submits a new request, billed by the GPU time of the deployment's machine.`,
			getStatus: `Gets the status of an earlier request to a RunComfy deployment by its deployment id and request_id (${wordList(STATUS_WORDS.statusCheck)}; Get Result tells whether a completed request succeeded). ${free}`,
			getResult: `Gets the result of an earlier request to a RunComfy deployment by its deployment id and request_id: status and output file URLs. ${free}`,
			cancel: `Cancels a queued or running request to a RunComfy deployment by its deployment id and request_id, and follows it until it has ended. ${free}`,
			deleteRequest: `Deletes an earlier request to a RunComfy deployment and its stored outputs, by deployment id and request_id. ${free}`,
			callInstanceProxy: `Calls a ComfyUI backend path (e.g. api/free) on a live instance of a RunComfy deployment, by deployment id and instance id. ${free}`,
		},
		deployment: {
			getAll: `Lists the RunComfy deployments of the account (ids, names, hardware, status). ${free}`,
			get: `Gets one RunComfy deployment by its id: name, status, workflow and hardware. ${free}`,
			create: `Creates a RunComfy deployment of a workflow on the given GPU hardware. ${paid} Instances are billed by GPU time while they run (minimum instances above 0 keep one running all the time).`,
			update: `Changes a RunComfy deployment (name, workflow version, hardware, instance limits, keep-warm). Raising the minimum instances or the keep-warm time spends RunComfy credit: running instances are billed by GPU time.`,
			pause: `Pauses a RunComfy deployment: its instances shut down and its billing stops; the configuration is kept. ${free}`,
			resume: `Resumes a paused RunComfy deployment so it takes requests again. ${free} Requests and warm instances are billed by GPU time.`,
			delete: `Deletes a RunComfy deployment permanently, by its id. ${free}`,
		},
	},
	{
		inference: {
			run: `${DEPLOYMENT_ID}; overrides (string: JSON text of the inputs by ComfyUI node id, e.g. {"6": {"inputs": {"text": "a red fox"}}}; the deployment's readme names them); wait_for_completion (boolean, default true; false returns the request_id at once); timeout_seconds (number, 1 to 120, default 120).`,
			getStatus: `${REQUEST}.`,
			getResult: `${REQUEST}.`,
			cancel: `${REQUEST}.`,
			deleteRequest: `${REQUEST}.`,
			callInstanceProxy: `${DEPLOYMENT_ID}; instance_id (string: the instance_id of a running request, from its status); comfy_backend_path (string, e.g. api/free); request_body (string: JSON text, e.g. {"unload_models": true}).`,
		},
		deployment: {
			getAll: 'include_payload (boolean, default false: true adds each workflow graph, which is large).',
			get: `${DEPLOYMENT_ID}; include_readme (boolean, default false: true adds the readme, which says which inputs to override).`,
			create: `name (string); workflow_id (string: the saved ComfyUI workflow); workflow_version (string, default v1); ${HARDWARE}; ${MAX_INSTANCES}.`,
			update: `${DEPLOYMENT_ID}; name (string); ${MAX_INSTANCES}.`,
			pause: `${DEPLOYMENT_ID}.`,
			resume: `${DEPLOYMENT_ID}.`,
			delete: `${DEPLOYMENT_ID}.`,
		},
	},
);
