/**
 * RunComfy Model's router (actions/router.ts): every resource and operation of node.type.ts reaches its module,
 * an unknown pair is refused clearly, and the item policy (Continue on Fail, the agent's form) applies.
 */
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import type { RunComfyModelType } from '../../nodes/RunComfyModel/actions/node.type';
import { describeRouter } from '../helpers/routerSetup';
import type { OperationsOf } from '../helpers/routerSetup';

const OPERATIONS: OperationsOf<RunComfyModelType> = {
	model: { run: true, estimateCost: true, getStatus: true, getResult: true, cancel: true },
	catalog: { getManyModels: true, getManyCategories: true, getModel: true },
	account: { getBalance: true },
};

describe('RunComfy Model: router', () => {
	describeRouter('RunComfyModel', new RunComfyModel(), OPERATIONS);
});
