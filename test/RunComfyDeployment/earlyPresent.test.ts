/**
 * Early downloads (nodes/shared/jobs/outcomes.ts `Presenter`) and what cannot be undone: with Delete Request After
 * Download a request is deleted only once its batch is judged good, so a batch that fails deletes nothing it did
 * not output (and Retry On Fail can still pick the good request up).
 */
import { runNode } from '../helpers/engine';
import { FAST_WAIT, credentialsFor, deploymentId, inferences, isRequestDelete, node, runJson, useSandbox } from './setup';

const sb = useSandbox();

const GOOD = 'sdxl-text-to-image';
const FAILS = 'flux-image-to-image';

/** Two items, one per deployment (from `$json.d`), Delete Request After Download on. */
const twoDeployments = (first: string, second: string) => ({
	inputItems: [{ json: { d: first } }, { json: { d: second } }],
	parameters: {
		...runJson(
			first,
			{ '6': { inputs: { text: 'a lighthouse' } } },
			{ downloadOutputs: true, options: { deleteRequestAfterDownload: true }, waitOptions: { ...FAST_WAIT, maxWaitSeconds: 30 } },
		),
		deploymentId: { __rl: true, mode: 'id', value: '={{ $json.d }}' },
	},
});

describe('Delete Request After Download with early downloads', () => {
	it('a batch that fails deletes none of its requests', async () => {
		const good = deploymentId(sb, GOOD);
		const bad = deploymentId(sb, FAILS);
		sb.reset({ queueMs: 0, modelDurations: { [good]: 30, [bad]: 1500 }, failingModels: { [bad]: 'CUDA out of memory' } });
		const result = await runNode({ node, credentials: credentialsFor(sb), ...twoDeployments(good, bad) });
		expect(result.status).toBe('error');
		expect(inferences(sb)).toHaveLength(2);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(0);
	});

	it('a batch that succeeds deletes each request after its files are downloaded', async () => {
		const first = deploymentId(sb, GOOD);
		const second = deploymentId(sb, FAILS);
		sb.reset({ queueMs: 0, modelDurations: { [first]: 30, [second]: 600 } });
		const result = await runNode({ node, credentials: credentialsFor(sb), ...twoDeployments(first, second) });
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.request_deleted)).toEqual([true, true]);
		const ids = inferences(sb).map((e) => e.createdId);
		expect(
			sb
				.log()
				.filter(isRequestDelete)
				.map((e) => ids.find((id) => e.path.endsWith(`/requests/${id}`))),
		).toEqual(expect.arrayContaining(ids));
	});
});
