import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import { versionProperties } from './actions/versionDescription';
import { listSearch, loadOptions, resourceMapping } from './methods';
import { manualUrl } from '../shared/manuals';

export class RunComfyModel implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'RunComfy Model',
		name: 'runComfyModel',
		icon: { light: 'file:../../icons/runcomfy.svg', dark: 'file:../../icons/runcomfy.dark.svg' },
		group: ['transform'],
		// 1.1: fewer top-level fields on Run; "On Timeout" left unset returns a timed-out job as still running.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Run RunComfy image, video and audio models, browse the catalog and check the balance',
		documentationUrl: manualUrl('model'),
		defaults: { name: 'RunComfy Model' },
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
