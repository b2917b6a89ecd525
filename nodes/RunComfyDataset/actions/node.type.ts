import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	dataset:
		| 'create'
		| 'getAll'
		| 'getStatus'
		| 'delete'
		| 'uploadFile'
		| 'uploadFromUrl'
		| 'uploadCaption'
		| 'getUploadUrls'
		| 'waitUntilReady';
};

/** Every resource/operation pair of the node; the router's map is checked against it. */
export type RunComfyDatasetType = AllEntities<NodeMap>;
