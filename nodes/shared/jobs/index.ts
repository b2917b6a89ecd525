/** The one job flow (see ./flow.ts) and what a node gives it (./kind.ts). */
export { runJobs } from './flow';
export { answerCallback } from './park/callback';
export type { Accepted, JobItem, JobKind, JobNoun, PresentContext, Tracked, Verdict } from './kind';
export {
	CANCEL_WAIT,
	DATASET_WAIT,
	INFERENCE_WAIT,
	offersLearningSwitch,
	SUBMIT_CONCURRENCY,
	TOOL_MAX_WAIT_SECONDS,
	TRAINING_WAIT,
} from './defaults';
export type { WaitDefaults } from './defaults';
export { readMinimumBalance, readWaitMode, readWaitOptions } from './options';
export type { ReadWaitOptions, WaitMode } from './options';
export { cancelOutcomeOf } from './waiting';
export { requestVerdict } from './verdicts';
