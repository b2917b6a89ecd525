/**
 * The types the nodes share: the service's records (defined by the transport, ./transport/types.ts, and
 * re-exported here) and the one status vocabulary.
 */
export type {
	ApiFamily,
	Balance,
	Dataset,
	Deployment,
	InputSchema,
	JsonSchemaProperty,
	JsonValue,
	ModelEntry,
	ModelList,
	RequestHandle,
	ResultRecord,
	RunComfyContext,
	RunComfyCredentials,
	SignedUpload,
	StatusRecord,
	TrainingJob,
} from './transport/types';
export { CREDENTIAL_NAME, DIRECT_UPLOAD_MAX_BYTES, HARDWARE_SKUS, TRAINING_GPU_TYPES } from './transport/types';

// ---------- Status vocabulary ----------

/**
 * One vocabulary for every status the service reports (model runs, deployment requests, training jobs,
 * datasets). `cancelling` is a deployment cancel that was accepted while the run still executes.
 */
export type RunState =
	| 'queued'
	| 'running'
	| 'succeeded'
	| 'failed'
	| 'cancelled'
	| 'cancelling'
	| 'stopped_finished'
	| 'stopped_incomplete'
	| 'unknown';
