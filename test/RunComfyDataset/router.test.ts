/**
 * RunComfy Dataset's router (actions/router.ts): every operation of node.type.ts reaches its module, an unknown
 * pair is refused clearly, and the item policy (Continue on Fail, the agent's form) applies.
 */
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import type { RunComfyDatasetType } from '../../nodes/RunComfyDataset/actions/node.type';
import { describeRouter } from '../helpers/routerSetup';
import type { OperationsOf } from '../helpers/routerSetup';

const OPERATIONS: OperationsOf<RunComfyDatasetType> = {
	dataset: {
		create: true,
		getAll: true,
		getStatus: true,
		delete: true,
		uploadFile: true,
		uploadFromUrl: true,
		uploadCaption: true,
		getUploadUrls: true,
		waitUntilReady: true,
	},
};

describe('RunComfy Dataset: router', () => {
	describeRouter('RunComfyDataset', new RunComfyDataset(), OPERATIONS);
});
