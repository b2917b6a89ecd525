import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	deployment: 'getAll' | 'get' | 'create' | 'update' | 'pause' | 'resume' | 'delete';
	inference: 'run' | 'getStatus' | 'getResult' | 'cancel' | 'deleteRequest' | 'callInstanceProxy';
};

/** Every resource/operation pair of the node; the router's lookup is checked against it. */
export type RunComfyDeploymentType = AllEntities<NodeMap>;
