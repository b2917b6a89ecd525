import { STATUS_WORDS, wordList } from '../../shared/status';
import { costNote, toolDescriptionProperties } from '../../shared/toolDescriptions';
import { TRAINING_GPU_TYPES } from '../../shared/transport/types';

const { free, paid } = costNote;

const JOB_ID = 'job_id (string: the job_id submit_training_job returned)';
const CONFIG = 'config_file (string: the ai-toolkit training config as YAML or JSON text; its dataset folder_path names a ready dataset)';
const GPU = `gpu_type (string, one of ${TRAINING_GPU_TYPES.join(', ')}; default ${TRAINING_GPU_TYPES[0]}); gpu_count (number, 1 or 8, default 1)`;

/** The Tool Description of each operation (see shared/toolDescriptions.ts). */
export const toolDescriptions = toolDescriptionProperties(
	{
		trainingJob: {
			submit: `Submits a RunComfy LoRA training job (a config and a dataset) on the given GPUs. Returns the job_id and its status. ${paid} Training is billed by GPU time until the job ends; each call starts a new job.`,
			getStatus: `Gets the status of a RunComfy training job by its job_id (${wordList(STATUS_WORDS.trainingJob)}; stopped means stopped early, to resume) and its progress. ${free}`,
			getResult: `Gets the result of a RunComfy training job by its job_id: status and the URLs of its checkpoints and samples (the latest checkpoint is a ready LoRA). ${free}`,
			cancel: `Cancels a queued or running RunComfy training job by its job_id; its checkpoints are kept. ${free}`,
			resume: `Continues a stopped or failed RunComfy training job from its latest checkpoint, by its job_id, on the given GPUs. ${paid} Billed by GPU time until the job ends.`,
			edit: `Replaces the config of a RunComfy training job that is no longer queued or running, by its job_id. ${free}`,
		},
	},
	{
		trainingJob: {
			submit: `${CONFIG}; ${GPU}.`,
			getStatus: `${JOB_ID}.`,
			getResult: `${JOB_ID}.`,
			cancel: `${JOB_ID}.`,
			resume: `${JOB_ID}; ${GPU}.`,
			edit: `${JOB_ID}; ${CONFIG}.`,
		},
	},
);
