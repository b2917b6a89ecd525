import { STATUS_WORDS, wordList } from '../../shared/status';
import { costNote, toolDescriptionProperties } from '../../shared/toolDescriptions';

const { free, paid } = costNote;

/** The Tool Description of each operation (see shared/toolDescriptions.ts). */
export const toolDescriptions = toolDescriptionProperties({
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
});
