/** The one job flow (see ./flow.ts) and what a node gives it (./kind.ts). */
export { runJobs } from './flow';
export { answerCallback } from './park/callback';
export type { Accepted, JobItem, JobKind, JobNoun, PresentContext, Tracked, Verdict } from './kind';
export { CANCEL_WAIT, DATASET_WAIT, DEFAULT_MAX_DOWNLOAD_MB, INFERENCE_WAIT, offersLearningSwitch, SUBMIT_CONCURRENCY, TOOL_MAX_WAIT_SECONDS, TRAINING_WAIT } from './defaults';
export type { WaitDefaults } from './defaults';
export {
	DEFAULT_BINARY_FIELD,
	FILE_LAYOUTS,
	MAX_LIST_LIMIT,
	checkNumber,
	emptyNumber,
	expressionIn,
	isEmptyValue,
	rawExpression,
	readBoolean,
	readDownloadOptions,
	readMinimumBalance,
	readNumber,
	readWaitMode,
	readWaitOptions,
	refuseEmptyExpression,
	refuseEmptyFormInputs,
} from './options';
export type { DownloadChoice, FileLayout, NumberRule, ReadWaitOptions, WaitMode } from './options';
export { cancelOutcomeOf } from './waiting';
export { requestVerdict } from './verdicts';
