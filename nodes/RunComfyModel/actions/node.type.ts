import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	model: 'run' | 'estimateCost' | 'getStatus' | 'getResult' | 'cancel';
	catalog: 'getManyModels' | 'getManyCategories' | 'getModel';
	account: 'getBalance';
};

/** Every resource/operation pair of the node; the router's lookup is checked against it. */
export type RunComfyModelType = AllEntities<NodeMap>;
