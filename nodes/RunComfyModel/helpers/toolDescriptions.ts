import { STATUS_WORDS, wordList } from '../../shared/status';
import { costNote, toolDescriptionProperties } from '../../shared/toolDescriptions';

const { free, paid } = costNote;

const MODEL_ID = 'model_id (string: a model id from list_models, e.g. blackforestlabs/flux-2/flash/text-to-image)';
const INPUTS = `inputs (string: the model's inputs by name as JSON text, e.g. {"prompt": "a red fox"}; get_model lists them)`;
const REQUEST_ID = 'request_id (string: the request_id the run returned)';

/** The Tool Description of each operation (see shared/toolDescriptions.ts). */
export const toolDescriptions = toolDescriptionProperties(
	{
		model: {
			run: `Runs a RunComfy hosted model (image, video or audio generation) with the given inputs and waits up to 2 minutes for it. Returns the request_id, the status, the output file URLs and the cost; a run still going after the wait comes back with still_running: true, to follow up with Get Status or Get Result and its request_id. ${paid} Each call submits a new run, billed by the model's price (per output or per second); price it first with Estimate Cost.`,
			estimateCost: `Estimates what running a RunComfy model with the given inputs would cost, in USD, from the catalog price, after checking the inputs as a run would. Submits nothing. ${free}`,
			getStatus: `Gets the status of an earlier RunComfy model run by its request_id (${wordList(STATUS_WORDS.statusCheck)}; Get Result tells whether a completed run succeeded). ${free}`,
			getResult: `Gets the result of an earlier RunComfy model run by its request_id: status, output file URLs and cost. ${free}`,
			cancel: `Cancels a RunComfy model run by its request_id while it is still queued; a run already running is not cancelled. ${free}`,
		},
		catalog: {
			getManyModels: `Lists RunComfy hosted models (model ids, names, categories, prices), optionally filtered by a search text or category. ${free}`,
			getManyCategories: `Lists the categories of RunComfy hosted models (e.g. text-to-image, image-to-video). ${free}`,
			getModel: `Gets one RunComfy model by its model id: its description, price and the input schema (which inputs a run takes). ${free}`,
		},
		account: {
			getBalance: `Gets the RunComfy account's remaining credit balance in USD. ${free}`,
		},
	},
	{
		model: {
			run: `${MODEL_ID}; ${INPUTS}; wait_for_completion (boolean, default true; false returns the request_id at once); timeout_seconds (number, 1 to 120, default 120).`,
			estimateCost: `${MODEL_ID}; ${INPUTS}.`,
			getStatus: `${REQUEST_ID}.`,
			getResult: `${REQUEST_ID}.`,
			cancel: `${REQUEST_ID}.`,
		},
		catalog: {
			getManyModels: 'search (string, optional: words in the model name or description); limit (number, 1 to 500).',
			getManyCategories: 'none.',
			getModel: `${MODEL_ID}.`,
		},
		account: { getBalance: 'none.' },
	},
);
