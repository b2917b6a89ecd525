/** Picking the latest ai-toolkit checkpoint among a training job's result artifacts (Training node and Trigger). */

/** `name_000002000.safetensors` → 2000; a checkpoint without a step number is the final save (Infinity). */
export function checkpointStep(url: string): number | undefined {
	let pathname = url;
	try {
		pathname = new URL(url).pathname;
	} catch {
		// not a URL: use as is
	}
	const file = safeDecode(pathname.split('/').pop() ?? '');
	if (!/\.safetensors$/i.test(file)) return undefined;
	const m = /_(\d+)\.safetensors$/i.exec(file);
	return m ? Number(m[1]) : Infinity;
}

/** The latest checkpoint: the final save if present, else the highest step; later in the list wins ties. */
export function pickLatestCheckpoint<T extends { url: string }>(found: T[]): T | undefined {
	let best: T | undefined;
	let bestStep = -1;
	for (const entry of found) {
		const step = checkpointStep(entry.url);
		if (step === undefined) continue;
		if (step >= bestStep) {
			best = entry;
			bestStep = step;
		}
	}
	return best;
}

/** A percent-encoded name decoded, or as it is when its encoding is malformed (a service URL must not throw). */
function safeDecode(name: string): string {
	try {
		return decodeURIComponent(name);
	} catch {
		return name;
	}
}
