import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { editTrainingJob, getTrainingJobStatus } from '../../../shared/transport';
import { jobIdProperty, readJobId } from '../../helpers/jobFields';
import { EDITABLE_STATES, rawStatus } from '../../helpers/jobRecords';
import { configTextProperties, datasetCatalog, prepareTextConfig } from '../../helpers/config/prepareConfig';

const properties: INodeProperties[] = [
	{
		displayName:
			"Only a STOPPED, CANCELED or FAILED job can be edited, and config.name must stay the job's original name. Resume the job afterwards to run the new config.",
		name: 'editNotice',
		type: 'notice',
		default: '',
	},
	jobIdProperty(),
	...configTextProperties({}),
];

export const description = updateDisplayOptions({ show: { resource: ['trainingJob'], operation: ['edit'] } }, properties);

function originalName(status: IDataObject): string | undefined {
	const config = status.config as IDataObject | undefined;
	const name = status.name ?? config?.name;
	return name === undefined || name === null || name === '' ? undefined : String(name);
}

/** Replaces the config of a STOPPED, CANCELED or FAILED job; the state and name are checked before the call. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const jobId = readJobId(this, itemIndex);
	const status = (await getTrainingJobStatus(this, jobId)) as IDataObject;
	const state = rawStatus(status);
	if (!EDITABLE_STATES.includes(state)) {
		throw new NodeOperationError(
			this.getNode(),
			`Training job ${jobId} is ${state || 'in an unknown state'}; only a STOPPED, CANCELED or FAILED job can be edited`,
			{
				itemIndex,
				description:
					state === 'RUNNING' || state === 'IN_QUEUE'
						? 'Nothing was changed. Cancel the job first (its checkpoints are kept), then edit and resume it.'
						: 'Nothing was changed. Check the job ID.',
			},
		);
	}
	const prepared = await prepareTextConfig(this, itemIndex, datasetCatalog(this), { requireReady: false });
	const original = originalName(status);
	const warnings = [...prepared.warnings];
	if (original === undefined) {
		warnings.push("RunComfy did not report the job's name, so config.name was not compared; RunComfy checks it");
	} else if (prepared.name !== undefined && prepared.name !== original) {
		throw new NodeOperationError(this.getNode(), `config.name is "${prepared.name}" but must stay "${original}", the job's original name`, {
			itemIndex,
			description: `Nothing was changed. Set config.name to "${original}" in the new config.`,
		});
	}
	const response = await editTrainingJob(this, jobId, { configFile: prepared.configFile, configFormat: prepared.configFormat });
	return {
		job_id: jobId,
		name: original ?? prepared.name,
		previous_status: status.status,
		config_format: prepared.configFormat,
		...(response ?? {}),
		...(warnings.length ? { warnings } : {}),
		note: 'The config was replaced; Resume the job to run it.',
	};
}
