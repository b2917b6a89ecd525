import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { waitProperties } from '../../../shared/descriptions';
import { CANCEL_WAIT, cancelOutcomeOf, readWaitOptions } from '../../../shared/jobs';
import { forCaller } from '../../../shared/items';
import { formatDuration } from '../../../shared/format';
import { normaliseStatus, withPublicStatus } from '../../../shared/status';
import { cancelDeploymentRequest, getDeploymentRequestStatus } from '../../../shared/transport';
import { waitForAll } from '../../../shared/wait';
import { readDeploymentId, readRequestId } from '../../helpers/deployments';
import { toolJson } from '../../helpers/results';
import { deploymentLocatorProperty, requestIdProperty } from '../../helpers/properties';

const show = { resource: ['inference'], operation: ['cancel'] };

const properties: INodeProperties[] = [
	deploymentLocatorProperty,
	requestIdProperty,
	...waitProperties(show, CANCEL_WAIT).map((p) =>
		p.name === 'waitForCompletion'
			? {
					...p,
					description:
						'Whether to keep checking the status until the request has really ended. The service first answers "cancellation_requested"; the request ends "cancelled" (or completes) shortly after.',
				}
			: p,
	),
];

export const description = updateDisplayOptions({ show }, properties);

/**
 * Inference → Cancel. A finished request answers `not_cancellable` (not an error). An accepted cancel is
 * `cancellation_requested`: the request may still be running, so by default the status is followed until
 * it ends (cancelled, or completed when it finished first).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const deploymentId = readDeploymentId(this, itemIndex);
	const requestId = readRequestId(this, itemIndex);
	// Every option is checked before the cancel is sent.
	const wait = readWaitOptions(this, itemIndex, CANCEL_WAIT);
	const response = await cancelDeploymentRequest(this, deploymentId, requestId);
	const outcome = cancelOutcomeOf(response);
	const json: IDataObject = { deployment_id: deploymentId, request_id: requestId, ...response, cancel_outcome: outcome };
	const accepted = normaliseStatus(outcome);
	if (wait.enabled && accepted === 'cancelling') {
		const [result] = await waitForAll(
			[
				{
					itemIndex,
					id: requestId,
					poll: async () => {
						// Sent once: the wait engine retries a failed poll itself.
						const record = await getDeploymentRequestStatus(this, deploymentId, requestId, { retry: 'never' });
						return { state: normaliseStatus(record.status), record };
					},
				},
			],
			{ ...wait, followCancellation: true, cancelOnStop: false },
			this.getExecutionCancelSignal?.(),
		);
		if (result.kind === 'error') throw result.error;
		json.status = result.record.status ?? result.state;
		json.still_running = result.kind !== 'done';
		if (result.kind === 'timeout' && wait.onTimeout === 'fail') {
			throw new NodeOperationError(
				this.getNode(),
				`Request ${requestId} has not ended ${formatDuration(wait.maxWaitMs)} after the cancellation was requested`,
				{
					itemIndex,
					description: 'The service accepted the cancellation; check later with Get Status.',
				},
			);
		}
	}
	return forCaller(this, withPublicStatus(json), toolJson);
}
