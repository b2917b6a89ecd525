/** Reads the Webhook Trigger's saved copy (nodes/RunComfyWebhookTrigger/ledger.ts) back for tests. */
import type { IDataObject } from 'n8n-workflow';

import { KEY_CHARS, RECORD_CHARS, keyOf } from '../../nodes/RunComfyWebhookTrigger/ledger';

/** The stage and time (ms, whole minutes) of each of `requestIds` the copy holds; the latest stage of each. */
export function storedStages(copy: unknown, requestIds: string[]): Record<string, [number, number]> {
	const text = String((copy as IDataObject | undefined)?.deliveries ?? '');
	const byKey = new Map<string, [number, number]>();
	for (let i = 0; i + RECORD_CHARS <= text.length; i += RECORD_CHARS) {
		const key = text.slice(i, i + KEY_CHARS);
		const rank = Number(text[i + KEY_CHARS]);
		const at = parseInt(text.slice(i + KEY_CHARS + 1, i + RECORD_CHARS), 36) * 60_000;
		if ((byKey.get(key)?.[0] ?? 0) < rank) byKey.set(key, [rank, at]);
	}
	const out: Record<string, [number, number]> = {};
	for (const id of requestIds) {
		const found = byKey.get(keyOf(id));
		if (found) out[id] = found;
	}
	return out;
}
