/** Judging a finished request (model run, deployment request): its result's word decides, else the last status. */
import type { IDataObject } from 'n8n-workflow';

import { normaliseStatus, resultState, withPublicStatus } from '../status';
import type { Verdict } from './kind';

export interface RequestVerdictInput {
	/** "Run 5a0e… of flux", "Request f033… on deployment 2f6c…": how the error names the job. */
	title: string;
	/** The last status record and the fetched result. */
	record: IDataObject;
	result: IDataObject;
	/** The output JSON of the result. */
	json: IDataObject;
	/** The service's reason, when it gave one. */
	reason: string | undefined;
	/** What to do about a failed one (the id is added). */
	failedHint: string;
	id: string;
}

export function requestVerdict(input: RequestVerdictInput): Verdict {
	const reported = resultState(input.result);
	const state = reported === 'unknown' ? normaliseStatus(input.record.status) : reported;
	const json = withPublicStatus({ ...input.json, status: input.json.status ?? input.record.status }, state);
	if (state !== 'failed' && state !== 'cancelled') return { ok: true, json };
	const failed = state === 'failed';
	const reason = input.reason ?? (failed ? 'the service reported no reason' : 'it was cancelled');
	return {
		ok: false,
		json: { ...json, service_error: reason },
		message: `${input.title} ${failed ? 'failed' : 'was cancelled'}: ${reason}`,
		description: failed
			? `${input.failedHint} Request ID: ${input.id}`
			: `It was cancelled on RunComfy before it finished. Request ID: ${input.id}`,
	};
}
