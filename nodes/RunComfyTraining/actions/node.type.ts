import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	trainingJob: 'submit' | 'getStatus' | 'getResult' | 'cancel' | 'resume' | 'edit';
};

/** Every resource/operation pair of the node; the router's map is checked against it. */
export type RunComfyTrainingType = AllEntities<NodeMap>;
