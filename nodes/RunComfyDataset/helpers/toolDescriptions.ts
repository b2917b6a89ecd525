import { costNote, toolDescriptionProperties } from '../../shared/toolDescriptions';

const { free } = costNote;

const DATASET_ID = 'dataset_id (string: the id create_dataset or list_datasets returned)';

/** The Tool Description of each operation (see shared/toolDescriptions.ts). */
export const toolDescriptions = toolDescriptionProperties(
	{
		dataset: {
			create: `Creates an empty RunComfy training dataset with the given name and returns its dataset id. ${free}`,
			getAll: `Lists the RunComfy training datasets of the account (ids, names, statuses). ${free}`,
			getStatus: `Gets the status of a RunComfy training dataset by its id (e.g. whether its files are processed and it is ready for training). ${free}`,
			delete: `Deletes a RunComfy training dataset and its files permanently, by its id. ${free}`,
			uploadFromUrl: `Adds a file (image or caption) to a RunComfy training dataset from a public URL, and waits up to 2 minutes for it to be processed. ${free}`,
			uploadCaption: `Adds a text file (a caption) with the given name and text to a RunComfy training dataset. ${free}`,
			uploadFile: `Adds a file from the workflow's binary data to a RunComfy training dataset. ${free}`,
			getUploadUrls: `Gets signed upload URLs for files of a RunComfy training dataset, given each file's name and size in bytes. ${free}`,
			waitUntilReady: `Waits up to 2 minutes until a RunComfy training dataset has processed its files; returns its status, with dataset_still_processing: true when it is not done yet. ${free}`,
		},
	},
	{
		dataset: {
			create: 'name (string: letters, digits, - and _).',
			getAll: 'none.',
			getStatus: `${DATASET_ID}.`,
			delete: `${DATASET_ID}.`,
			uploadFromUrl: `${DATASET_ID}; source_url (string: a public http or https URL of an image or caption); filename (string, optional: its name in the dataset, e.g. fox_1.png).`,
			uploadCaption: `${DATASET_ID}; filename (string: the image's name with .txt, e.g. fox_1.txt); text (string: the caption).`,
			uploadFile: `${DATASET_ID}; the file is the binary data of the workflow item.`,
			getUploadUrls: `${DATASET_ID}; filename_to_byte_size (string: JSON text of each file name with its size in bytes, e.g. {"fox_2.jpg": 120000}).`,
			waitUntilReady: `${DATASET_ID}.`,
		},
	},
);
