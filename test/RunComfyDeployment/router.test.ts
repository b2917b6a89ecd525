/**
 * RunComfy Deployment's router (actions/router.ts): every resource and operation of node.type.ts reaches its
 * module, an unknown pair is refused clearly, and the item policy (Continue on Fail, the agent's form) applies.
 */
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import type { RunComfyDeploymentType } from '../../nodes/RunComfyDeployment/actions/node.type';
import { describeRouter } from '../helpers/routerSetup';
import type { OperationsOf } from '../helpers/routerSetup';

const OPERATIONS: OperationsOf<RunComfyDeploymentType> = {
	inference: { run: true, getStatus: true, getResult: true, cancel: true, deleteRequest: true, callInstanceProxy: true },
	deployment: { getAll: true, get: true, create: true, update: true, pause: true, resume: true, delete: true },
};

describe('RunComfy Deployment: router', () => {
	describeRouter('RunComfyDeployment', new RunComfyDeployment(), OPERATIONS);
});
