import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { webhook as parkedRunCallback } from './actions/inference/run.operation';
import { router } from './actions/router';
import { versionProperties } from './actions/versionDescription';
import { listSearch, loadOptions, resourceMapping } from './methods';

// Its one webhook is a restart webhook (like the Wait node's): the resume URL of a parked execution, never
// registered with a service, so the trigger lifecycle (checkExists/create/delete) does not apply.
// eslint-disable-next-line @n8n/community-nodes/webhook-lifecycle-complete
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
		// The resume URL of an execution parked by Inference → Run (Wait Mode "Park Until RunComfy Calls Back").
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: '', path: '', restartWebhook: true }],
		properties: versionProperties,
	};

	methods = { listSearch, loadOptions, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	/** RunComfy calling back a parked Inference → Run (never throws: see shared/jobs/resume.ts). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await parkedRunCallback.call(this);
	}
}
