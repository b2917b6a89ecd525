/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Shared by the transport's failure suites (./failures.*.test.ts): the sandbox they run against, ids the
 * sandbox knows, a training config and dataset, a port nobody listens on, and the check that an error carries
 * no token. Not a test file itself.
 */
import { createServer } from 'net';

import type { IExecuteFunctions } from 'n8n-workflow';

import { createDataset, uploadDatasetText } from '../../../nodes/shared/transport';
import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../../sandbox';
import { collectStrings } from '../../helpers/faults-setup';
import { useTransportSandbox } from '../../helpers/transportSetup';

export const BASE: SandboxConfig = { runDurationMs: 50, queueMs: 10, datasetReadyMs: 0 };
export const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';
export const T2I = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01';

/** The suite's sandbox (BASE, reset before each test), `run` / `caught` under a real ExecuteContext. */
export const useFailureSandbox = () => useTransportSandbox({ config: BASE });

/** The requests that reached the API hosts (not the file host). */
export const apiCalls = (sb: Sandbox): RequestLogEntry[] => sb.log().filter((e) => ['model', 'serverless', 'trainer'].includes(e.api));

/** No string reachable from the error (its own properties too, enumerable or not) contains the token. */
export function expectNoToken(error: unknown, token: string): void {
	const strings = collectStrings(error);
	expect(strings.length).toBeGreaterThan(3);
	expect(strings.filter((s) => s.includes(token))).toEqual([]);
	expect(JSON.stringify(error)).not.toContain(token);
	expect(String(error)).not.toContain(token);
}

export const yamlConfig = (name: string, dataset: string) =>
	[
		'config:',
		`  name: ${name}`,
		'  process:',
		'    - training_folder: /app/ai-toolkit/output',
		'      datasets:',
		`        - folder_path: /app/ai-toolkit/datasets/${dataset}`,
		'      train:',
		'        steps: 4',
		'',
	].join('\n');

/** A READY dataset, so a training config can mount it. */
export async function readyDataset(ctx: IExecuteFunctions, name: string): Promise<void> {
	const ds = await createDataset(ctx, name);
	await uploadDatasetText(ctx, ds.id, 'a.txt', 'caption');
}

/** A loopback port with nothing listening (a connection to it is refused before anything is sent). */
export async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
