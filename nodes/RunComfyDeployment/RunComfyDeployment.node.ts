import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import { versionProperties } from './actions/versionDescription';
import { listSearch, loadOptions, resourceMapping } from './methods';

export class RunComfyDeployment implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'RunComfy Deployment',
		name: 'runComfyDeployment',
		icon: { light: 'file:../../icons/runcomfy.svg', dark: 'file:../../icons/runcomfy.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Run your own ComfyUI workflows deployed as serverless APIs on RunComfy, with overrides picked from the deployed graph, and manage the deployments',
		defaults: { name: 'RunComfy Deployment' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'runComfyApi', required: true }],
		properties: versionProperties,
	};

	methods = { listSearch, loadOptions, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
