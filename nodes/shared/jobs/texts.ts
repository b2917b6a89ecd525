/** Every error text of the job flow, built from the kind's noun so the wording cannot drift between nodes. */
import type { JobNoun } from './kind';

export interface ErrorText {
	message: string;
	description: string;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const RAISE_MAX_WAIT = 'or raise "Max Wait (Seconds)" in Wait Options (or set "On Timeout" to "Return as Still Running").';

export const jobTexts = (noun: JobNoun) => ({
	/** Several items refused before anything was submitted. */
	invalidMany: (count: number, total: number, first: string): string => {
		const text = first
			.trim()
			.replace(/\.+$/, '')
			.replace(/\s*Nothing was submitted$/, '')
			.replace(/\.+$/, '');
		return `${count} of ${total} items cannot be submitted; the first: ${text}. Nothing was submitted.`;
	},
	/** Added to a submit error when other items were already submitted. */
	alreadySubmitted: (list: string): string =>
		`${capital(noun.many)} already submitted keep going on RunComfy (${list}); use ${noun.lookUp} with these ${noun.idLabel}s instead of running the node again.`,
	timedOut: (id: string, waited: string, status: string, progress = ''): ErrorText => ({
		message: `${capital(noun.one)} ${id} did not finish within ${waited} (status: ${status})${progress}`,
		description: `It keeps going on RunComfy. Fetch it later with ${noun.lookUp} and ${noun.idLabel} ${id}, ${RAISE_MAX_WAIT}`,
	}),
	timedOutMany: (count: number, waited: string, ids: string): ErrorText => ({
		message: `${count} ${noun.many} did not finish within ${waited}: ${ids}`,
		description: `They keep going on RunComfy. Fetch them later with ${noun.lookUp} and these ${noun.idLabel}s, ${RAISE_MAX_WAIT}`,
	}),
	notFetched: (id: string): string => `The result of ${noun.one} ${id} could not be fetched`,
	notFetchedHint: (id: string): string => `The ${noun.one} finished. Fetch it again with ${noun.lookUp} and ${noun.idLabel} ${id}.`,
	stoppedBeforeSubmit: (): ErrorText => ({
		message: 'The execution was stopped before this item was submitted',
		description: 'Nothing was submitted for this item. Run the workflow again for it.',
	}),
	noAnswerAfterStop: (): ErrorText => ({
		message: `The execution was stopped while this item's ${noun.one} was being submitted, and RunComfy did not answer in time`,
		description: `It may have been accepted. Check your RunComfy dashboard before you submit it again.`,
	}),
	/** A parked job without result when n8n resumed the execution at Max Wait. */
	parkedNoResult: (id: string, waited: string): ErrorText => ({
		message: `${capital(noun.one)} ${id} has no result: the parked execution reached Max Wait (${waited}) before RunComfy had reported every ${noun.one} of this batch`,
		description: `It may have finished meanwhile, or still be running on RunComfy. Fetch it with ${noun.lookUp} and ${noun.idLabel} ${id}, or raise "Max Wait (Seconds)" in Wait Options if runs take longer.`,
	}),
	/** The node's output while the execution is parked. */
	parkedWaiting: (waited: string): string =>
		`Parked: the execution waits for RunComfy to call back (at most ${waited}, then each ${noun.one} without result is output with its ${noun.idLabel})`,
	resultKept: (id: string): string =>
		`The ${noun.one} ${id} succeeded; its outputs are listed in the output (${noun.lookUp} fetches them again).`,
});
