import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What a watcher remembers between polls (one per event kind and node; see ../state.ts). */
export interface WatchState extends IDataObject {
	/** Last state key seen per watched id; a new key in a reported state is a transition. Absent before the first poll. */
	seen?: IDataObject;
	/** Ids that answered 404: reported once as "gone" and no longer requested while they stay in the list. */
	gone?: IDataObject;
	/** Ids whose last read failed, with the failure already reported (reported again only when it changes). */
	failing?: IDataObject;
}

/**
 * One watched thing as seen by one poll. Nothing is written to the state until every observation of the poll
 * (and every output it needs) has been read, so a failed request never swallows a transition.
 */
export interface Observation {
	/** The watched id (job, dataset, request; `balance:<threshold µ$>` for the balance). */
	id: string;
	/** Identifies the state: the same key twice in a row is the same state, a new key is a transition. */
	key: string;
	/** Whether entering this state is an event (finished, failed, ...). */
	reported: boolean;
	/** Builds the output item; may fetch more (a result). Called only for items that are output. */
	output(): Promise<IDataObject>;
	/** How to report this id when its output cannot be built (its result cannot be fetched). */
	failure?: FailureItem;
}

/** A watched id that could not be read this poll. */
export interface WatchFailure {
	id: string;
	error: unknown;
	/** The output item reporting it (`<kind>.gone` for a 404, `<kind>.error` otherwise). */
	describe(gone: boolean): IDataObject;
}

/** What one poll saw: every id in the watch list, and what was read for those not skipped. */
export interface WatchReport {
	ids: string[];
	observations: Observation[];
	failures: WatchFailure[];
}

export interface TriggerEvent {
	properties: INodeProperties[];
	/** The state's name (the event, plus any setting that changes what the keys mean). Default: the event name. */
	stateName?(ctx: IPollFunctions): string;
	/**
	 * Reads the watched things once (the same in a scheduled poll and in "Fetch Test Event"). Ids in `skip` are
	 * not requested. A failure of one id is returned, never thrown, so the other ids' events still fire.
	 */
	observe(ctx: IPollFunctions, skip: ReadonlySet<string>): Promise<WatchReport>;
}

// ------------------------------------------------------------------------------------------------------------
// Per-id isolation

const httpCodeOf = (error: unknown): string | undefined => {
	const code = (error as { httpCode?: unknown } | undefined)?.httpCode;
	return code === undefined || code === null ? undefined : String(code);
};

/** A 404: the id does not exist (any more), e.g. a request deleted after download, or a typo. */
export const isGone = (error: unknown): boolean => httpCodeOf(error) === '404';

/** A 401 concerns the token, not one id: the poll fails (and an activation with a wrong token is refused). */
const credentialError = (error: unknown): NodeApiError | undefined =>
	error instanceof NodeApiError && httpCodeOf(error) === '401' ? error : undefined;

/** How a failure is remembered: the same signature on the next poll is not reported again. */
export function failureSignature(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return [httpCodeOf(error) ?? '', message].join('|');
}

export interface FailureItem {
	/** `training`, `dataset` or `request`: the event names are `<prefix>.gone` and `<prefix>.error`. */
	prefix: string;
	/** Identifying fields of the item, e.g. `{ job_id }`. */
	fields: IDataObject;
}

/** The output item of an id that could not be read. */
export function failureItem(what: FailureItem, error: unknown, gone: boolean): IDataObject {
	const err = error as { message?: unknown; description?: unknown };
	return {
		event: `${what.prefix}.${gone ? 'gone' : 'error'}`,
		...what.fields,
		error: typeof err?.message === 'string' ? err.message : String(error),
		...(typeof err?.description === 'string' && err.description ? { error_description: err.description } : {}),
		...(httpCodeOf(error) ? { http_code: httpCodeOf(error) } : {}),
		// A gone id is no longer requested; another error is reported once and the id stays watched.
		watching: !gone,
	};
}

/**
 * Reads each id with `read`, one at a time. A failing id becomes a WatchFailure (its item built by `describe`)
 * and the others go on; only a credential error (401) fails the whole poll.
 */
export async function observeEach(
	ids: string[],
	skip: ReadonlySet<string>,
	read: (id: string) => Promise<Observation>,
	describe: (id: string) => FailureItem,
): Promise<WatchReport> {
	const observations: Observation[] = [];
	const failures: WatchFailure[] = [];
	for (const id of ids) {
		if (skip.has(id)) continue;
		try {
			observations.push(await read(id));
		} catch (error) {
			const fatal = credentialError(error);
			if (fatal) throw fatal;
			failures.push({ id, error, describe: (gone) => failureItem(describe(id), error, gone) });
		}
	}
	return { ids, observations, failures };
}

// ------------------------------------------------------------------------------------------------------------
// Deciding what a poll emits

export interface EmitOptions {
	/** "Fetch Test Event": show the current state of everything, change nothing. */
	manual: boolean;
	/** Whether the first poll (no state yet) fires for things already in a reported state. */
	fireForExisting: boolean;
}

/**
 * Decides what a poll emits, and the next state.
 *
 * Manual mode: the current state of every id (failures as their gone/error items, or the error itself when no id
 * could be read); the state is left as it was, so testing never consumes a transition.
 *
 * Otherwise: each observation whose key is new and reported, once. On the first poll (no state yet) the current
 * keys are only recorded, unless `fireForExisting`; ids that appear later fire when first seen in a reported
 * state. A 404 gives one "gone" item and the id is no longer requested; another failure is reported once (again
 * only when it changes) and does not hold back the other ids. A failing id keeps its last key, so its transition
 * still fires once it can be read. Ids no longer in the list are forgotten.
 */
export async function emit(
	report: WatchReport,
	state: WatchState,
	options: EmitOptions,
): Promise<{ items: IDataObject[]; next: WatchState }> {
	// Items come out in the order of the watch list.
	const position = new Map(report.ids.map((id, index) => [id, index]));
	const found: Array<{ id: string; item: IDataObject }> = [];
	const ordered = () => found.sort((a, b) => (position.get(a.id) ?? Infinity) - (position.get(b.id) ?? Infinity)).map((f) => f.item);
	if (options.manual) {
		// Nothing could be read (e.g. the only id is mistyped): the error itself is the clearest answer to a test.
		if (report.observations.length === 0 && report.failures.length > 0) throw report.failures[0].error;
		for (const o of report.observations) {
			try {
				found.push({ id: o.id, item: await o.output() });
			} catch (error) {
				const fatal = credentialError(error);
				if (fatal) throw fatal;
				found.push({ id: o.id, item: failureOfOutput(o, error).describe(isGone(error)) });
			}
		}
		for (const f of report.failures) found.push({ id: f.id, item: f.describe(isGone(f.error)) });
		return { items: ordered(), next: state };
	}

	const firstPoll = state.seen === undefined;
	const seen = state.seen ?? {};
	const listed = new Set(report.ids);
	const nextSeen: IDataObject = {};
	const gone: IDataObject = {};
	const failing: IDataObject = {};
	for (const id of Object.keys(state.gone ?? {})) if (listed.has(id)) gone[id] = true;

	const failures = [...report.failures];
	for (const o of report.observations) {
		const isNew = o.reported && seen[o.id] !== o.key;
		if (!isNew || (firstPoll && !options.fireForExisting)) {
			nextSeen[o.id] = o.key;
			continue;
		}
		try {
			found.push({ id: o.id, item: await o.output() });
			nextSeen[o.id] = o.key;
		} catch (error) {
			// The result could not be fetched: report it like a failed read; the transition fires on a later poll.
			const fatal = credentialError(error);
			if (fatal) throw fatal;
			failures.push(failureOfOutput(o, error));
		}
	}
	for (const f of failures) {
		if (isGone(f.error)) {
			found.push({ id: f.id, item: f.describe(true) });
			gone[f.id] = true;
			continue;
		}
		if (seen[f.id] !== undefined) nextSeen[f.id] = seen[f.id];
		const signature = failureSignature(f.error);
		if (state.failing?.[f.id] !== signature) found.push({ id: f.id, item: f.describe(false) });
		failing[f.id] = signature;
	}
	const next: WatchState = { seen: nextSeen };
	if (Object.keys(gone).length) next.gone = gone;
	if (Object.keys(failing).length) next.failing = failing;
	return { items: ordered(), next };
}

/** An observation whose output (e.g. its result) could not be fetched, as a failure of its id. */
function failureOfOutput(o: Observation, error: unknown): WatchFailure {
	return {
		id: o.id,
		error,
		describe: (gone) => failureItem(o.failure ?? { prefix: 'watch', fields: { id: o.id } }, error, gone),
	};
}

// ------------------------------------------------------------------------------------------------------------
// Id lists

/** Splits "a, b\nc" or an expression's array into trimmed, non-empty, unique ids. */
export function parseIdList(value: unknown): string[] {
	const parts = Array.isArray(value)
		? value.flatMap((v) => (Array.isArray(v) ? v.map(String) : String(v ?? '').split(/[\s,;]+/)))
		: String(value ?? '').split(/[\s,;]+/);
	return [...new Set(parts.map((p) => p.trim()).filter((p) => p.length > 0))];
}

/** The ids of a list parameter, or an error telling the user to enter some. */
export function requireIds(ctx: IPollFunctions, ids: string[], what: string, field: string): string[] {
	if (ids.length === 0) {
		throw new NodeOperationError(ctx.getNode(), `No ${what} to watch`, {
			description: `Enter at least one ID in "${field}" (separated by commas or new lines), or an expression that returns a list of IDs.`,
		});
	}
	return ids;
}
