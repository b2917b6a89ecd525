/**
 * The bad-input table (runner and rules: ./table.ts). Training: GPU rules, config paths, datasets, edit/resume states, and every numeric option.
 */
import type { IDataObject } from 'n8n-workflow';

import type { FixtureName, Fixtures, Row } from './table';
import { GPU_FIX, GUARD_FIX, byId, job, noRequests, simpleSubmit, textSubmit, trainingConfig, useBadInputTable } from './table';
import { numericFixtures, numericRows } from './numbers';

/** A config for the ready dataset with one thing changed. */
function configWith(fx: Fixtures, change: (process: IDataObject, config: IDataObject) => void, name = 'bad_input_job'): IDataObject {
	const cfg = trainingConfig(name, fx.readyDataset.name) as IDataObject;
	const config = cfg.config as IDataObject;
	change((config.process as IDataObject[])[0], config);
	return cfg;
}

const ROWS: Row[] = [
	// Training
	{
		name: 'wrong GPU combination (8 × HOPPER_141)',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { gpuType: 'HOPPER_141', gpuCount: 8 }),
		error: /8 GPUs are available only with ADA_80_PLUS \(H100\), not with HOPPER_141/,
		fix: GPU_FIX,
		check: noRequests,
	},
	{
		name: 'unknown GPU type',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { gpuType: 'A100_40' }),
		error: /GPU type "A100_40" is not offered for training; use ADA_80_PLUS or HOPPER_141/,
		fix: GPU_FIX,
		check: noRequests,
	},
	{
		name: 'GPU count other than 1 or 8',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { gpuCount: 4 }),
		error: /GPU count must be 1 or 8 \(got 4\)/,
		fix: GPU_FIX,
		check: noRequests,
	},
	{
		name: 'wrong training_folder',
		node: 'training',
		parameters: (fx) => textSubmit(configWith(fx, (p) => (p.training_folder = '/workspace/output'))),
		error: /training_folder is "\/workspace\/output"/,
		fix: /must be "\/app\/ai-toolkit\/output"/,
	},
	{
		name: 'wrong dataset folder_path (a dataset that does not exist)',
		node: 'training',
		parameters: (fx) =>
			textSubmit(configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = '/app/ai-toolkit/datasets/no-such-set'))),
		error: /refers to dataset "no-such-set", which does not exist in this account/,
		fix: /the datasets are: ready-set \(READY\)/,
	},
	{
		name: 'dataset folder_path outside /app/ai-toolkit/datasets/',
		node: 'training',
		parameters: (fx) => textSubmit(configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = '/data/my-images'))),
		error: /folder_path is "\/data\/my-images"/,
		fix: /must be "\/app\/ai-toolkit\/datasets\/<dataset name>" \(the dataset's name, not its id\)/,
	},
	{
		name: 'folder_path naming the dataset by id instead of name',
		node: 'training',
		parameters: (fx) =>
			textSubmit(configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = `/app/ai-toolkit/datasets/${fx.readyDataset.id}`))),
		error: /folder_path uses the dataset's id/,
		fix: /use its name: "\/app\/ai-toolkit\/datasets\/ready-set"/,
	},
	{
		name: 'dataset not READY (config text)',
		node: 'training',
		parameters: (fx) =>
			textSubmit(
				configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = `/app/ai-toolkit/datasets/${fx.draftDataset.name}`)),
			),
		error: /Dataset "draft-set" is DRAFT, not READY/,
		fix: /Wait for it with RunComfy Dataset → Wait Until Ready/,
	},
	{
		name: 'dataset not READY (simple form)',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { dataset: byId(fx.draftDataset.id) }),
		error: /dataset "draft-set" is DRAFT, not READY/,
		fix: /Wait for it with RunComfy Dataset → Wait Until Ready/,
	},
	{
		name: 'config that is not valid JSON',
		node: 'training',
		parameters: textSubmit('{"job": "extension", "config": {', { configFormat: 'json' }),
		error: /The config is not valid JSON/,
		// The description points at the position of the mistake (it names no further fix).
		fix: /Nothing was submitted\.\n- The config is not valid JSON: .*position \d+/,
	},
	{
		name: 'empty config (from an expression)',
		node: 'training',
		parameters: textSubmit('={{ $json.config }}'),
		inputItems: [{ json: { config: '' } }],
		error: /the Config field is empty/,
		fix: /Nothing was submitted\.\n- the Config field is empty/,
	},
	{
		name: 'minimum-balance guard on a training submit',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { options: { minimumBalanceUsd: 1000 } }),
		error: /below the minimum of \$1000\.00/,
		fix: GUARD_FIX,
	},
	{
		name: 'renamed edit (config.name changed)',
		node: 'training',
		parameters: (fx) =>
			job('edit', fx.stoppedJob.id, {
				configText: JSON.stringify(trainingConfig('renamed_job', fx.readyDataset.name)),
				configFormat: 'json',
			}),
		error: /config\.name is "renamed_job" but must stay "fixture_job", the job's original name/,
		fix: /Set config\.name to "fixture_job" in the new config/,
		check: (log) => expect(log.filter((e) => e.path.endsWith('/edit'))).toEqual([]),
	},
	{
		name: 'edit while RUNNING',
		node: 'training',
		parameters: (fx) =>
			job('edit', fx.runningJob, { configText: JSON.stringify(trainingConfig('running_job', fx.readyDataset.name)), configFormat: 'json' }),
		error: /is RUNNING; only a STOPPED, CANCELED or FAILED job can be edited/,
		fix: /Cancel the job first \(its checkpoints are kept\), then edit and resume it/,
		check: (log) => expect(log.filter((e) => e.path.endsWith('/edit'))).toEqual([]),
	},
	{
		name: 'resume while RUNNING',
		node: 'training',
		parameters: (fx) => job('resume', fx.runningJob),
		error: /is RUNNING; only a stopped, failed or cancelled job can be resumed/,
		fix: /Wait for it with Get Status, or cancel it first/,
	},
	{
		name: 'resume with the wrong GPU combination',
		node: 'training',
		parameters: (fx) => job('resume', fx.stoppedJob.id, { gpuType: 'HOPPER_141', gpuCount: 8 }),
		error: /8 GPUs are available only with ADA_80_PLUS/,
		fix: GPU_FIX,
	},
	{
		name: 'job id "../x" (path injection)',
		node: 'training',
		parameters: job('getStatus', '../x'),
		error: /The job id "\.\.\/x" contains "\/"/,
		fix: /Use the job id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'job id that does not exist',
		node: 'training',
		parameters: job('getResult', 'job-does-not-exist'),
		error: /404 \(40451\).*job-does-not-exist/,
		fix: /Check the job id returned when the job was submitted/,
	},
	{
		name: 'empty job id',
		node: 'training',
		parameters: job('getStatus', ' '),
		error: /^No job ID was given$/,
		fix: /Enter the job ID that Submit output as "job_id"/,
		check: noRequests,
	},
	{
		name: 'Steps "2k" on the second item only: refused before anything is paid, naming item 1',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { steps: '={{ $json.steps }}' }),
		inputItems: [{ json: { steps: 100 } }, { json: { steps: '2k' } }],
		error: /^"Steps" of item 1 must be a number, but is "2k"$/,
		fix: /^Enter a plain number \(.+\); an expression must produce one\./,
		check: (log) => expect(log.filter((e) => e.method !== 'GET')).toEqual([]),
	},
	{
		name: 'GPU Count "eight" (from an expression)',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { gpuCount: '={{ "eight" }}' }),
		error: /^"GPU Count" of item 0 must be a number, but is "eight"$/,
		fix: /1, or 8 with ADA_80_PLUS/,
		check: noRequests,
	},
	...numericRows('training'),
];

useBadInputTable(ROWS, [
	...new Set<FixtureName>(['readyDataset', 'draftDataset', 'stoppedJob', 'runningJob', ...numericFixtures('training')]),
]);
