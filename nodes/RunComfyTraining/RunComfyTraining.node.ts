import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import { versionProperties } from './actions/versionDescription';
import { listSearch } from './methods';
import { manualUrl } from '../shared/manuals';

export class RunComfyTraining implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'RunComfy Training',
		name: 'runComfyTraining',
		icon: { light: 'file:../../icons/runcomfy.svg', dark: 'file:../../icons/runcomfy.dark.svg' },
		group: ['transform'],
		// 1.1: "On Timeout" left unset returns a timed-out job as still running (1 keeps failing the node).
		version: [1, 1.1],
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Train LoRAs with ai-toolkit on RunComfy GPUs and use the checkpoints in model runs',
		documentationUrl: manualUrl('training'),
		defaults: { name: 'RunComfy Training' },
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
