import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import { versionProperties } from './actions/versionDescription';
import { listSearch } from './methods';
import { manualUrl } from '../shared/manuals';

export class RunComfyDataset implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'RunComfy Dataset',
		name: 'runComfyDataset',
		icon: { light: 'file:../../icons/runcomfy.svg', dark: 'file:../../icons/runcomfy.dark.svg' },
		group: ['transform'],
		// 1.1: "On Timeout" left unset returns a timed-out job as still running (1 keeps failing the node).
		version: [1, 1.1],
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Build LoRA training datasets on RunComfy: upload images, videos and captions of any size',
		documentationUrl: manualUrl('dataset'),
		defaults: { name: 'RunComfy Dataset' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'runComfyApi', required: true }],
		properties: versionProperties,
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
