/**
 * The shared transport: one typed function per endpoint of the service.
 * Every request goes through `apiRequest`, which uses `httpRequestWithAuthentication` with the credential's
 * base URL for the family, maps errors to NodeApiError with a hint, and retries reads/polls only (paid
 * submissions only when the service provably did not accept them).
 * Signatures here are what nodes code against; keep them stable.
 *
 * Files: request.ts (apiRequest, retries), errors.ts (error mapping, hints), redaction.ts (token scrubbing),
 * ids.ts (path ids), credentials.ts (getCredentials), http.ts (HTTP facts: headers, Retry-After, statuses,
 * network failures), retry.ts (backoff), multipart.ts (streamed uploads), endpoints/*.ts (one per API area).
 */
export { getCredentials, parseAllowedHosts, baseUrlFor } from './credentials';
export type { ByteStream, NetworkFacts } from './http';
export { DROPPED_CONNECTION_CODES, NOT_SENT_CODES, headerOf, httpStatusOf, isTransientError, networkFactsOf, retryAfterMsOf } from './http';
// Test hooks stay out of this barrel: tests import setRetryPolicy from ./request and resetQueueVersionCache
// from ./endpoints/deployments (docs/dev/architecture.md, "Process-wide state").
export { apiRequest, apiRequestFull, cancelSignalOf, getRetryPolicy, DEFAULT_TIMEOUT_MS } from './request';
export type { ApiRequestSpec, ApiAnswer, RetryChoice, RetryMode, ExpectedAnswer } from './request';
export type { RetryPolicy } from './retry';
export { DEFAULT_RETRY_POLICY, backoffDelay } from './retry';
export { parseRetryAfter } from './http';
export { encodeModelId, encodeId, encodeProxyPath } from './ids';
export { KNOWN_ERROR_CODES, bodySample, clip, hintFor, redact, renderValidationDetail } from './errors';
export type { Subject, SubjectKind } from './errors';

// Model API
export {
	listModels,
	listCategories,
	getModel,
	submitModelRun,
	getModelRequestStatus,
	getModelRequestResult,
	cancelModelRequest,
} from './endpoints/model';
export type { ListModelsQuery } from './endpoints/model';

// Deployments
export {
	listDeployments,
	getDeployment,
	createDeployment,
	updateDeployment,
	deleteDeployment,
	submitDeploymentInference,
	getDeploymentRequestStatus,
	getDeploymentRequestResult,
	cancelDeploymentRequest,
	deleteDeploymentRequest,
	callInstanceProxy,
} from './endpoints/deployments';
export type { InferenceBody, DeploymentIncludes } from './endpoints/deployments';

// Datasets
export {
	createDataset,
	listDatasets,
	getDatasetStatus,
	deleteDataset,
	uploadDatasetFile,
	uploadDatasetStream,
	uploadDatasetText,
	getDatasetUploadUrls,
	putSignedUpload,
} from './endpoints/datasets';

// Training jobs
export {
	submitTrainingJob,
	getTrainingJobStatus,
	getTrainingJobResult,
	cancelTrainingJob,
	resumeTrainingJob,
	editTrainingJob,
} from './endpoints/training';
export type { TrainingSubmit } from './endpoints/training';

// Account
export { getBalance } from './endpoints/account';
