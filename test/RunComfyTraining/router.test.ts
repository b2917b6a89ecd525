/**
 * RunComfy Training's router (actions/router.ts): every operation of node.type.ts reaches its module, an unknown
 * pair is refused clearly, and the item policy (Continue on Fail, the agent's form) applies.
 */
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import type { RunComfyTrainingType } from '../../nodes/RunComfyTraining/actions/node.type';
import { describeRouter } from '../helpers/routerSetup';
import type { OperationsOf } from '../helpers/routerSetup';

const OPERATIONS: OperationsOf<RunComfyTrainingType> = {
	trainingJob: { submit: true, getStatus: true, getResult: true, cancel: true, resume: true, edit: true },
};

describe('RunComfy Training: router', () => {
	describeRouter('RunComfyTraining', new RunComfyTraining(), OPERATIONS);
});
