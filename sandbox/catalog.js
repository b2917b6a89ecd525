'use strict';
/**
 * The model catalog: curated models across all 11 categories with input schemas shaped like the live
 * catalog (non-standard `"type": "float"`, `"default": null`, `validations` arrays, file inputs marked by
 * `format`), plus `extraModels` generated ones for picker benchmarks.
 *
 * Each curated entry has public fields (served by the API) and sandbox-only fields under `sim`:
 *   sim.output: 'images' | 'image' | 'video' | 'videos' | 'audio' | 'string'  (shape of the result output)
 *   sim.ext: file extension of generated outputs
 *   sim.large: outputs are `largeOutputBytes` big
 *   sim.fails: error text; every run fails
 *   sim.foreignThumbnail: the output also carries a `thumbnail` URL on the foreign (not allow-listed) host
 */

const CATEGORIES = [
	'audio-to-audio',
	'audio-to-video',
	'edit-video',
	'image-to-image',
	'image-to-video',
	'reference-to-video',
	'speech-to-video',
	'text-to-audio',
	'text-to-image',
	'text-to-video',
	'video-to-video',
];

// ---------- property builders ----------
const prompt = (description = 'Text prompt describing what to generate.', maxLength = 2000) => ({
	type: 'string',
	description,
	maxLength,
});
const negativePrompt = () => ({
	type: 'string',
	description: 'What the output should avoid.',
	maxLength: 2000,
	default: '',
});
const seed = () => ({
	type: 'integer',
	description: 'Random seed for reproducible results. Leave empty for a random seed.',
	minimum: 0,
	maximum: 2147483647,
	default: null,
});
const float = (minimum, maximum, def, description, extra) => ({
	type: 'float',
	description,
	minimum,
	maximum,
	default: def,
	...(extra || {}),
});
const int = (minimum, maximum, def, description, extra) => ({
	type: 'integer',
	description,
	minimum,
	maximum,
	default: def,
	...(extra || {}),
});
const choice = (values, def, description) => ({ type: 'string', description, enum: values, default: def });
const intChoice = (values, def, description) => ({ type: 'integer', description, enum: values, default: def });
const bool = (def, description) => ({ type: 'boolean', description, default: def });
const sizeLimit = (mb) => ({ type: 'max_file_size', value: mb * 1024 * 1024, message: `File must be at most ${mb} MB.` });
const file = (kind, description, validations) => ({
	type: 'string',
	format: `${kind}_uri`,
	description,
	...(validations ? { validations } : {}),
});
const files = (kind, minItems, maxItems, description, validations) => ({
	type: 'array',
	format: `${kind}_uris`,
	description,
	items: { type: 'string' },
	minItems,
	maxItems,
	...(validations ? { validations } : {}),
});
const lora = () => ({
	type: 'object',
	description:
		'LoRA to apply: `path` is the file name of a LoRA from your account assets or a public URL of a .safetensors file.',
	properties: {
		path: { type: 'string', description: 'LoRA asset name or public URL.' },
		scale: { type: 'float', description: 'LoRA strength.', minimum: 0, maximum: 4, default: 1 },
	},
	required: ['path'],
});
const imageSize = (def = 'landscape_4_3') =>
	choice(['square_hd', 'square', 'portrait_4_3', 'portrait_16_9', 'landscape_4_3', 'landscape_16_9'], def, 'Size preset of the generated image.');
const aspectRatio = (values = ['1:1', '16:9', '9:16', '4:3', '3:4'], def = '16:9') =>
	choice(values, def, 'Aspect ratio of the output.');
const outputFormat = (values = ['jpeg', 'png', 'webp'], def = 'png') => choice(values, def, 'File format of the output.');
const numImages = (max = 4) => int(1, max, 1, 'Number of images to generate.');

const schema = (properties, required) => ({ type: 'object', required, properties });

// ---------- curated models ----------
/** Compact definitions; `entry()` fills in the derived fields. */
const CURATED = [
	// --- text-to-image ---
	{
		model_id: 'blackforestlabs/flux-2/flash/text-to-image',
		display_name: 'FLUX.2 Flash',
		description: 'Fast FLUX.2 text-to-image with strong prompt adherence at low latency.',
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.04,
		price_unit: 'output',
		pricing_note: '$0.04 per image',
		tags: ['flux', 'fast'],
		supported_batch_size: [1, 2, 3, 4],
		input_schema: schema(
			{
				prompt: prompt('The prompt to generate an image from.', 4000),
				guidance_scale: float(0, 20, 2.5, 'How closely the image follows the prompt.'),
				seed: seed(),
				image_size: imageSize(),
				output_format: outputFormat(),
				num_images: numImages(4),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'blackforestlabs/flux-1/dev/lora/text-to-image',
		display_name: 'FLUX.1 [dev] with LoRA',
		description: 'FLUX.1 [dev] text-to-image that applies a LoRA (for example a checkpoint from the trainer).',
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.035,
		price_unit: 'output',
		tags: ['flux', 'lora'],
		supported_batch_size: [1, 2, 3, 4],
		input_schema: schema(
			{
				prompt: prompt('The prompt; include the trigger word of the LoRA.', 4000),
				lora: lora(),
				num_inference_steps: int(1, 50, 28, 'Number of denoising steps.'),
				guidance_scale: float(0, 20, 3.5, 'Classifier-free guidance scale.'),
				seed: seed(),
				image_size: imageSize('square_hd'),
				num_images: numImages(4),
				output_format: outputFormat(['jpeg', 'png'], 'jpeg'),
				enable_safety_checker: bool(true, 'Run the safety checker on outputs.'),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'blackforestlabs/flux-2/pro/text-to-image',
		display_name: 'FLUX.2 [pro]',
		description: 'Highest quality FLUX.2 text-to-image for production work.',
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.05,
		price_unit: 'output',
		supported_batch_size: [1],
		input_schema: schema(
			{
				prompt: prompt('The prompt to generate an image from.', 4000),
				image_size: imageSize('landscape_16_9'),
				safety_tolerance: choice(['1', '2', '3', '4', '5'], '2', 'Safety tolerance, 1 is the strictest.'),
				seed: seed(),
				output_format: outputFormat(['jpeg', 'png'], 'jpeg'),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'google/imagen-4/preview/text-to-image',
		display_name: 'Imagen 4',
		description: "Google's Imagen 4 photorealistic text-to-image model.",
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.04,
		price_unit: 'output',
		supported_batch_size: [1, 2, 3, 4],
		input_schema: schema(
			{
				prompt: prompt('Describe the image.', 5000),
				negative_prompt: negativePrompt(),
				aspect_ratio: aspectRatio(['1:1', '16:9', '9:16', '3:4', '4:3'], '1:1'),
				num_images: numImages(4),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'bytedance/seedream-4/text-to-image',
		display_name: 'Seedream 4.0',
		description: 'ByteDance Seedream 4.0 high-resolution text-to-image up to 4K.',
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.03,
		price_unit: 'output',
		supported_batch_size: [1, 2, 3, 4, 5, 6],
		input_schema: schema(
			{
				prompt: prompt('Describe the image.', 3000),
				width: int(1024, 4096, 2048, 'Output width in pixels.', { multipleOf: 16 }),
				height: int(1024, 4096, 2048, 'Output height in pixels.', { multipleOf: 16 }),
				max_images: int(1, 6, 1, 'Maximum number of images.'),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'ideogram/ideogram-v3/text-to-image',
		display_name: 'Ideogram 3.0',
		description: 'Ideogram 3.0 with excellent typography and graphic design output.',
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.06,
		price_unit: 'output',
		pricing_note: '$0.03 (turbo), $0.06 (balanced), $0.09 (quality) per image',
		supported_batch_size: [1, 2, 3, 4],
		input_schema: schema(
			{
				prompt: prompt('Describe the image, put text in quotes.', 2000),
				rendering_speed: choice(['TURBO', 'BALANCED', 'QUALITY'], 'BALANCED', 'Speed/quality trade-off.'),
				style: choice(['AUTO', 'GENERAL', 'REALISTIC', 'DESIGN'], 'AUTO', 'Style preset.'),
				expand_prompt: bool(true, 'Let the model expand the prompt (MagicPrompt).'),
				num_images: numImages(4),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'stability/stable-diffusion-3-5/large/text-to-image',
		display_name: 'Stable Diffusion 3.5 Large',
		description: 'Stability AI SD 3.5 Large, an 8B MMDiT text-to-image model.',
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.065,
		price_unit: 'output',
		input_schema: schema(
			{
				prompt: prompt('Describe the image.', 10000),
				negative_prompt: negativePrompt(),
				num_inference_steps: int(1, 50, 28, 'Number of denoising steps.'),
				guidance_scale: float(0, 20, 3.5, 'CFG scale.', { multipleOf: 0.1 }),
				image_size: imageSize('square_hd'),
				seed: seed(),
				output_format: outputFormat(['jpeg', 'png'], 'png'),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'runcomfy/sdxl/juggernaut-xl/text-to-image',
		display_name: 'Juggernaut XL (ComfyUI workflow)',
		description: 'SDXL Juggernaut checkpoint served as a ComfyUI workflow with a refiner pass.',
		categories: ['text-to-image'],
		kind: 'workflow',
		base_price_usd: 0.01,
		price_unit: 'output',
		tags: ['sdxl', 'comfyui'],
		input_schema: schema(
			{
				prompt: prompt('Positive prompt.', 2000),
				negative_prompt: negativePrompt(),
				steps: int(10, 60, 30, 'Sampler steps.'),
				cfg: float(1, 15, 6.5, 'CFG scale.', { multipleOf: 0.5 }),
				sampler_name: choice(['euler', 'euler_ancestral', 'dpmpp_2m', 'dpmpp_2m_sde', 'dpmpp_3m_sde'], 'dpmpp_2m', 'Sampler.'),
				width: int(512, 2048, 1024, 'Width.', { multipleOf: 64 }),
				height: int(512, 2048, 1024, 'Height.', { multipleOf: 64 }),
				batch_size: int(1, 8, 1, 'Images per run.'),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'openai/gpt-image-1/text-to-image',
		display_name: 'GPT Image 1',
		description: "OpenAI's GPT Image 1 for precise, instruction-following image generation.",
		categories: ['text-to-image'],
		kind: 'model',
		base_price_usd: 0.042,
		price_unit: 'output',
		pricing_note: 'From $0.011 (low) to $0.167 (high) per image',
		input_schema: schema(
			{
				prompt: prompt('Describe the image.', 32000),
				quality: choice(['low', 'medium', 'high', 'auto'], 'auto', 'Rendering quality.'),
				size: choice(['1024x1024', '1536x1024', '1024x1536', 'auto'], 'auto', 'Output size.'),
				background: choice(['auto', 'transparent', 'opaque'], 'auto', 'Background.'),
				num_images: numImages(4),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	// --- image-to-image ---
	{
		model_id: 'google/nano-banana/edit',
		display_name: 'Nano Banana Edit',
		description: 'Gemini 2.5 Flash Image editing: combine and edit up to four input images with a prompt.',
		categories: ['image-to-image'],
		kind: 'model',
		base_price_usd: 0.039,
		price_unit: 'output',
		tags: ['gemini', 'edit'],
		input_schema: schema(
			{
				prompt: prompt('Describe the edit.', 5000),
				image_urls: files('image', 1, 4, 'Images to edit (1 to 4), public HTTPS URLs.', [
					sizeLimit(10),
					{ type: 'max_items', value: 4, message: 'At most 4 images.' },
				]),
				num_images: numImages(4),
				output_format: outputFormat(['jpeg', 'png'], 'png'),
			},
			['prompt', 'image_urls'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'blackforestlabs/flux-1-kontext/pro/edit',
		display_name: 'FLUX.1 Kontext [pro]',
		description: 'In-context image editing with FLUX.1 Kontext: change parts of an image from a text instruction.',
		categories: ['image-to-image'],
		kind: 'model',
		base_price_usd: 0.04,
		price_unit: 'output',
		input_schema: schema(
			{
				prompt: prompt('The editing instruction.', 3000),
				image_url: file('image', 'Image to edit.', [sizeLimit(20)]),
				guidance_scale: float(1, 20, 3.5, 'Guidance scale.'),
				aspect_ratio: aspectRatio(['21:9', '16:9', '4:3', '1:1', '3:4', '9:16', '9:21'], '1:1'),
				num_images: numImages(4),
				seed: seed(),
				output_format: outputFormat(['jpeg', 'png'], 'jpeg'),
			},
			['prompt', 'image_url'],
		),
		sim: { output: 'images' },
	},
	{
		model_id: 'bytedance/seededit-3/image-to-image',
		display_name: 'SeedEdit 3.0',
		description: 'ByteDance SeedEdit 3.0 instruction-based image editing that preserves identity and detail.',
		categories: ['image-to-image'],
		kind: 'model',
		base_price_usd: 0.03,
		price_unit: 'output',
		input_schema: schema(
			{
				prompt: prompt('Editing instruction.', 1000),
				image_url: file('image', 'Source image.'),
				guidance_scale: float(0, 10, 0.5, 'How strongly the instruction is followed.', { multipleOf: 0.05 }),
				seed: seed(),
			},
			['prompt', 'image_url'],
		),
		sim: { output: 'image' },
	},
	{
		model_id: 'runcomfy/upscale/real-esrgan/image-to-image',
		display_name: 'Real-ESRGAN Upscaler',
		description: 'Upscale images 2x or 4x with optional face restoration (ComfyUI workflow).',
		categories: ['image-to-image'],
		kind: 'workflow',
		base_price_usd: 0.005,
		price_unit: 'output',
		input_schema: schema(
			{
				image_url: file('image', 'Image to upscale.', [sizeLimit(25)]),
				scale: intChoice([2, 4], 2, 'Upscale factor.'),
				face_enhance: bool(false, 'Restore faces with GFPGAN.'),
			},
			['image_url'],
		),
		sim: { output: 'image' },
	},
	{
		model_id: 'qwen/qwen-image/edit',
		display_name: 'Qwen Image Edit',
		description: 'Qwen-Image editing and generation with accurate text rendering in Chinese and English.',
		categories: ['image-to-image', 'text-to-image'],
		kind: 'model',
		base_price_usd: 0.03,
		price_unit: 'output',
		input_schema: schema(
			{
				prompt: prompt('Instruction or prompt.', 2000),
				image_url: file('image', 'Optional image to edit; omit to generate from text.'),
				num_inference_steps: int(2, 50, 30, 'Denoising steps.'),
				guidance_scale: float(0, 20, 4, 'Guidance scale.'),
				negative_prompt: negativePrompt(),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'images' },
	},
	// --- image-to-video ---
	{
		model_id: 'kling/kling-2-1/pro/image-to-video',
		display_name: 'Kling 2.1 Pro Image to Video',
		description: 'Kling 2.1 Pro animates a still image into a 1080p video clip following a prompt.',
		categories: ['image-to-video'],
		kind: 'model',
		base_price_usd: 0.09,
		price_unit: 'second',
		pricing_note: '$0.09 per second of video',
		input_schema: schema(
			{
				prompt: prompt('Describe the motion.', 2500),
				image_url: file('image', 'Start frame.', [sizeLimit(10)]),
				duration: choice(['5', '10'], '5', 'Duration in seconds.'),
				negative_prompt: negativePrompt(),
				cfg_scale: float(0, 1, 0.5, 'How closely the video follows the prompt.'),
			},
			['prompt', 'image_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'wan-ai/wan-2-2/a14b/image-to-video',
		display_name: 'Wan 2.2 A14B Image to Video',
		description: 'Open-weights Wan 2.2 MoE image-to-video at 480p or 720p.',
		categories: ['image-to-video'],
		kind: 'workflow',
		base_price_usd: 0.04,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the motion.', 2000),
				image_url: file('image', 'Start frame.'),
				resolution: choice(['480p', '580p', '720p'], '720p', 'Output resolution.'),
				num_frames: int(81, 121, 81, 'Number of frames.'),
				frames_per_second: int(4, 60, 16, 'Frames per second.'),
				negative_prompt: negativePrompt(),
				seed: seed(),
			},
			['prompt', 'image_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'minimax/hailuo-02/standard/image-to-video',
		display_name: 'Hailuo 02 Standard',
		description: 'MiniMax Hailuo 02 image-to-video with realistic physics at 768p.',
		categories: ['image-to-video'],
		kind: 'model',
		base_price_usd: 0.045,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the motion.', 2000),
				image_url: file('image', 'First frame.'),
				duration: intChoice([6, 10], 6, 'Duration in seconds.'),
				prompt_optimizer: bool(true, 'Let the model optimise the prompt.'),
			},
			['prompt', 'image_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'bytedance/seedance-1/pro/image-to-video',
		display_name: 'Seedance 1.0 Pro Image to Video',
		description: 'ByteDance Seedance 1.0 Pro multi-shot image-to-video up to 1080p.',
		categories: ['image-to-video'],
		kind: 'model',
		base_price_usd: 0.06,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the video.', 2000),
				image_url: file('image', 'Start frame.'),
				end_image_url: file('image', 'Optional end frame.'),
				resolution: choice(['480p', '720p', '1080p'], '1080p', 'Resolution.'),
				duration: int(3, 12, 5, 'Duration in seconds.'),
				camera_fixed: bool(false, 'Keep the camera still.'),
				seed: seed(),
			},
			['prompt', 'image_url'],
		),
		sim: { output: 'videos' },
	},
	{
		model_id: 'google/veo-3/fast/image-to-video',
		display_name: 'Veo 3 Fast Image to Video',
		description: "Google's Veo 3 Fast turns an image into an 8 second video with native audio.",
		categories: ['image-to-video'],
		kind: 'model',
		base_price_usd: 0.15,
		price_unit: 'second',
		pricing_note: '$0.10 per second without audio, $0.15 with audio',
		input_schema: schema(
			{
				prompt: prompt('Describe the scene, motion and sound.', 4000),
				image_url: file('image', 'Input image (720p or larger, 16:9 or 9:16).', [sizeLimit(8)]),
				duration: choice(['8s'], '8s', 'Duration.'),
				generate_audio: bool(true, 'Generate an audio track.'),
				resolution: choice(['720p', '1080p'], '720p', 'Resolution.'),
			},
			['prompt', 'image_url'],
		),
		sim: { output: 'video' },
	},
	// --- text-to-video ---
	{
		model_id: 'google/veo-3/text-to-video',
		display_name: 'Veo 3',
		description: "Google's Veo 3 text-to-video with synchronized dialogue, music and effects.",
		categories: ['text-to-video'],
		kind: 'model',
		base_price_usd: 0.4,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the scene, motion and sound.', 4000),
				aspect_ratio: aspectRatio(['16:9', '9:16'], '16:9'),
				duration: choice(['8s'], '8s', 'Duration.'),
				negative_prompt: negativePrompt(),
				generate_audio: bool(true, 'Generate an audio track.'),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'kling/kling-2-1/master/text-to-video',
		display_name: 'Kling 2.1 Master Text to Video',
		description: 'Kling 2.1 Master, top-tier motion quality and prompt understanding.',
		categories: ['text-to-video'],
		kind: 'model',
		base_price_usd: 0.28,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the video.', 2500),
				duration: choice(['5', '10'], '5', 'Duration in seconds.'),
				aspect_ratio: aspectRatio(['16:9', '9:16', '1:1'], '16:9'),
				negative_prompt: negativePrompt(),
				cfg_scale: float(0, 1, 0.5, 'Prompt adherence.'),
			},
			['prompt'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'wan-ai/wan-2-2/a14b/text-to-video',
		display_name: 'Wan 2.2 A14B Text to Video',
		description: 'Open-weights Wan 2.2 text-to-video with cinematic control.',
		categories: ['text-to-video'],
		kind: 'workflow',
		base_price_usd: 0.04,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the video.', 2000),
				resolution: choice(['480p', '580p', '720p'], '720p', 'Resolution.'),
				aspect_ratio: aspectRatio(['16:9', '9:16', '1:1'], '16:9'),
				num_frames: int(81, 121, 81, 'Number of frames.'),
				enable_prompt_expansion: bool(false, 'Expand the prompt with an LLM.'),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'openai/sora-2/text-to-video',
		display_name: 'Sora 2',
		description: "OpenAI's Sora 2 video generation with audio.",
		categories: ['text-to-video'],
		kind: 'model',
		base_price_usd: 0.1,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the video.', 5000),
				duration: intChoice([4, 8, 12], 4, 'Duration in seconds.'),
				aspect_ratio: aspectRatio(['16:9', '9:16'], '16:9'),
				resolution: choice(['720p'], '720p', 'Resolution.'),
			},
			['prompt'],
		),
		sim: { output: 'video' },
	},
	// --- video-to-video ---
	{
		model_id: 'runway/gen4-aleph/video-to-video',
		display_name: 'Runway Aleph',
		description: 'Runway Gen-4 Aleph: edit, restyle and transform an input video with a prompt.',
		categories: ['video-to-video'],
		kind: 'model',
		base_price_usd: 0.15,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the transformation.', 1000),
				video_url: file('video', 'Input video (up to 10 s).', [sizeLimit(64), { type: 'max_duration', value: 10, message: 'Video must be at most 10 seconds.' }]),
				reference_image_url: file('image', 'Optional style reference image.'),
				seed: seed(),
			},
			['prompt', 'video_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'wan-ai/wan-2-1/vace/video-to-video',
		display_name: 'Wan 2.1 VACE',
		description: 'All-in-one video creation and editing: depth, pose and reference guided video-to-video.',
		categories: ['video-to-video'],
		kind: 'workflow',
		base_price_usd: 0.05,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the output video.', 2000),
				video_url: file('video', 'Control video.'),
				control_mode: choice(['depth', 'pose', 'canny', 'none'], 'depth', 'Which control signal to extract.'),
				reference_image_urls: files('image', 0, 3, 'Optional reference images.'),
				strength: float(0, 1, 0.8, 'Control strength.', { multipleOf: 0.05 }),
				seed: seed(),
			},
			['prompt', 'video_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'runcomfy/video-upscale/seedvr2/video-to-video',
		display_name: 'SeedVR2 Video Upscaler',
		description: 'Upscale and restore videos with SeedVR2 (ComfyUI workflow).',
		categories: ['video-to-video'],
		kind: 'workflow',
		base_price_usd: 0.02,
		price_unit: 'second',
		input_schema: schema(
			{
				video_url: file('video', 'Video to upscale.', [sizeLimit(200)]),
				upscale_factor: float(1, 4, 2, 'Upscale factor.', { multipleOf: 0.5 }),
				target_fps: intChoice([24, 30, 60], 30, 'Output frame rate.'),
			},
			['video_url'],
		),
		sim: { output: 'video' },
	},
	// --- edit-video ---
	{
		model_id: 'luma/ray-2/flash/modify-video',
		display_name: 'Luma Ray 2 Flash Modify Video',
		description: 'Restyle or re-imagine a video while keeping its motion, with Luma Ray 2 Flash.',
		categories: ['edit-video'],
		kind: 'model',
		base_price_usd: 0.12,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the modification.', 2000),
				video_url: file('video', 'Video to modify.'),
				mode: choice(['adhere_1', 'adhere_2', 'adhere_3', 'flex_1', 'flex_2', 'flex_3', 'reimagine_1', 'reimagine_2', 'reimagine_3'], 'flex_1', 'How far to depart from the input.'),
				image_url: file('image', 'Optional first-frame reference.'),
			},
			['prompt', 'video_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'decart/lucy/edit-video',
		display_name: 'Lucy Edit',
		description: 'Text-guided video editing: change clothes, characters or objects while keeping motion.',
		categories: ['edit-video'],
		kind: 'model',
		base_price_usd: 0.1,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the edit.', 1500),
				video_url: file('video', 'Video to edit.'),
				resolution: choice(['720p'], '720p', 'Resolution.'),
				enhance_prompt: bool(true, 'Enhance the prompt.'),
			},
			['prompt', 'video_url'],
		),
		sim: { output: 'video' },
	},
	// --- reference-to-video ---
	{
		model_id: 'vidu/vidu-q1/reference-to-video',
		display_name: 'Vidu Q1 Reference to Video',
		description: 'Consistent subjects across shots: generate video from up to seven reference images.',
		categories: ['reference-to-video'],
		kind: 'model',
		base_price_usd: 0.1,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the video.', 1500),
				reference_image_urls: files('image', 1, 7, 'Reference images of the subjects (1 to 7).'),
				aspect_ratio: aspectRatio(['16:9', '9:16', '1:1'], '16:9'),
				movement_amplitude: choice(['auto', 'small', 'medium', 'large'], 'auto', 'Motion amplitude.'),
				seed: seed(),
			},
			['prompt', 'reference_image_urls'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'kling/kling-1-6/elements/reference-to-video',
		display_name: 'Kling 1.6 Elements',
		description: 'Compose a video from up to four element images (characters, objects, scenes).',
		categories: ['reference-to-video'],
		kind: 'model',
		base_price_usd: 0.056,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the video.', 2500),
				input_image_urls: files('image', 1, 4, 'Element images (1 to 4).', [sizeLimit(10)]),
				duration: choice(['5', '10'], '5', 'Duration in seconds.'),
				aspect_ratio: aspectRatio(['16:9', '9:16', '1:1'], '16:9'),
				negative_prompt: negativePrompt(),
			},
			['prompt', 'input_image_urls'],
		),
		sim: { output: 'video' },
	},
	// --- speech-to-video ---
	{
		model_id: 'bytedance/omnihuman/speech-to-video',
		display_name: 'OmniHuman',
		description: 'Lifelike talking or singing avatar video from one image and a speech track.',
		categories: ['speech-to-video'],
		kind: 'model',
		base_price_usd: 0.14,
		price_unit: 'second',
		input_schema: schema(
			{
				image_url: file('image', 'Portrait of the person.'),
				audio_url: file('audio', 'Speech or singing audio (up to 30 s).', [sizeLimit(20), { type: 'max_duration', value: 30, message: 'Audio must be at most 30 seconds.' }]),
			},
			['image_url', 'audio_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'wan-ai/wan-2-2/s2v/speech-to-video',
		display_name: 'Wan 2.2 S2V',
		description: 'Audio-driven cinematic video: a character speaks or sings to the given audio.',
		categories: ['speech-to-video'],
		kind: 'workflow',
		base_price_usd: 0.05,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the scene.', 2000),
				image_url: file('image', 'Reference image of the character.'),
				audio_url: file('audio', 'Driving audio.'),
				resolution: choice(['480p', '720p'], '480p', 'Resolution.'),
				num_inference_steps: int(4, 40, 20, 'Denoising steps.'),
				seed: seed(),
			},
			['prompt', 'image_url', 'audio_url'],
		),
		sim: { output: 'video' },
	},
	// --- audio-to-video ---
	{
		model_id: 'kling/kling-avatar/audio-to-video',
		display_name: 'Kling AI Avatar',
		description: 'Animate a portrait so that it lip-syncs to an audio file.',
		categories: ['audio-to-video'],
		kind: 'model',
		base_price_usd: 0.0562,
		price_unit: 'second',
		input_schema: schema(
			{
				image_url: file('image', 'Portrait image.'),
				audio_url: file('audio', 'Audio to lip-sync to.'),
				prompt: prompt('Optional guidance for expression and motion.', 1000),
			},
			['image_url', 'audio_url'],
		),
		sim: { output: 'video' },
	},
	{
		model_id: 'runcomfy/music-visualizer/audio-to-video',
		display_name: 'Music Visualizer',
		description: 'Turn a music track into an audio-reactive visualizer video (ComfyUI workflow).',
		categories: ['audio-to-video'],
		kind: 'workflow',
		base_price_usd: 0.01,
		price_unit: 'second',
		input_schema: schema(
			{
				audio_urls: files('audio', 1, 2, 'Audio tracks to visualise (1 or 2, mixed).'),
				style: choice(['spectrum', 'waveform', 'particles', 'abstract'], 'spectrum', 'Visual style.'),
				prompt: prompt('Optional prompt for the background.', 500),
				fps: intChoice([24, 30], 30, 'Frames per second.'),
			},
			['audio_urls'],
		),
		sim: { output: 'video' },
	},
	// --- text-to-audio ---
	{
		model_id: 'elevenlabs/eleven-v3/text-to-audio',
		display_name: 'ElevenLabs Eleven v3 TTS',
		description: 'Expressive multilingual text-to-speech with audio tags.',
		categories: ['text-to-audio'],
		kind: 'model',
		base_price_usd: 0.1,
		price_unit: 'output',
		pricing_note: '$0.10 per 1000 characters',
		input_schema: schema(
			{
				text: prompt('Text to speak.', 5000),
				voice: choice(['Rachel', 'Aria', 'Roger', 'Sarah', 'Laura', 'Charlie', 'George'], 'Rachel', 'Voice.'),
				stability: float(0, 1, 0.5, 'Voice stability.', { multipleOf: 0.01 }),
				language_code: { type: 'string', description: 'ISO 639-1 language code; empty for auto.', default: null, maxLength: 5 },
			},
			['text'],
		),
		sim: { output: 'audio' },
	},
	{
		model_id: 'stability/stable-audio-2-5/text-to-audio',
		display_name: 'Stable Audio 2.5',
		description: 'Generate music and sound effects up to three minutes long from text.',
		categories: ['text-to-audio'],
		kind: 'model',
		base_price_usd: 0.2,
		price_unit: 'output',
		input_schema: schema(
			{
				prompt: prompt('Describe the music or sound.', 2000),
				seconds_total: int(1, 190, 30, 'Length in seconds.'),
				num_inference_steps: int(4, 8, 8, 'Denoising steps.'),
				guidance_scale: float(1, 25, 1, 'Guidance scale.'),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'audio' },
	},
	{
		model_id: 'minimax/music-1-5/text-to-audio',
		display_name: 'MiniMax Music 1.5',
		description: 'Full songs with vocals from lyrics and a style prompt.',
		categories: ['text-to-audio'],
		kind: 'model',
		base_price_usd: 0.035,
		price_unit: 'output',
		input_schema: schema(
			{
				prompt: prompt('Style, mood and instrumentation.', 300),
				lyrics: prompt('Lyrics with [verse]/[chorus] tags.', 3000),
				audio_format: choice(['mp3', 'wav'], 'wav', 'Audio format.'),
				sample_rate: intChoice([16000, 24000, 32000, 44100], 44100, 'Sample rate.'),
			},
			['prompt', 'lyrics'],
		),
		sim: { output: 'audio' },
	},
	{
		model_id: 'hkust/mmaudio-v2/text-to-audio',
		display_name: 'MMAudio V2',
		description: 'Synchronized sound effects generated from a text description.',
		categories: ['text-to-audio'],
		kind: 'inference',
		base_price_usd: 0.001,
		price_unit: 'second',
		input_schema: schema(
			{
				prompt: prompt('Describe the sound.', 1000),
				negative_prompt: negativePrompt(),
				duration: float(1, 30, 8, 'Length in seconds.'),
				cfg_strength: float(0, 20, 4.5, 'Guidance strength.'),
				seed: seed(),
			},
			['prompt'],
		),
		sim: { output: 'audio' },
	},
	// --- audio-to-audio ---
	{
		model_id: 'stability/stable-audio-2-5/audio-to-audio',
		display_name: 'Stable Audio 2.5 Audio to Audio',
		description: 'Transform an audio clip into a new style while keeping its structure.',
		categories: ['audio-to-audio'],
		kind: 'model',
		base_price_usd: 0.2,
		price_unit: 'output',
		input_schema: schema(
			{
				prompt: prompt('Describe the target sound.', 2000),
				audio_url: file('audio', 'Input audio.', [sizeLimit(50)]),
				strength: float(0, 1, 0.8, 'How much to change the input.', { multipleOf: 0.01 }),
				num_inference_steps: int(4, 8, 8, 'Denoising steps.'),
				seed: seed(),
			},
			['prompt', 'audio_url'],
		),
		sim: { output: 'audio' },
	},
	{
		model_id: 'runcomfy/demucs/stem-separation/audio-to-audio',
		display_name: 'Demucs Stem Separation',
		description: 'Split a song into vocals, drums, bass and other stems.',
		categories: ['audio-to-audio'],
		kind: 'inference',
		base_price_usd: 0.005,
		price_unit: 'output',
		input_schema: schema(
			{
				audio_url: file('audio', 'Song to separate.'),
				stem: choice(['vocals', 'drums', 'bass', 'other'], 'vocals', 'Which stem to return.'),
				output_format: choice(['wav', 'mp3'], 'wav', 'Audio format.'),
			},
			['audio_url'],
		),
		sim: { output: 'audio' },
	},
	{
		model_id: 'elevenlabs/voice-changer/audio-to-audio',
		display_name: 'ElevenLabs Voice Changer',
		description: 'Speech-to-speech: say it in another voice while keeping delivery and emotion.',
		categories: ['audio-to-audio'],
		kind: 'model',
		base_price_usd: 0.12,
		price_unit: 'output',
		input_schema: schema(
			{
				audio_url: file('audio', 'Speech to convert.'),
				voice: choice(['Rachel', 'Aria', 'Roger', 'Sarah'], 'Aria', 'Target voice.'),
				remove_background_noise: bool(false, 'Remove background noise first.'),
			},
			['audio_url'],
		),
		sim: { output: 'audio' },
	},
	// --- test models (stable ids for tests) ---
	{
		model_id: 'runcomfy/test/large-output',
		display_name: 'Test: Large Output',
		description: 'Sandbox test model whose video output is `largeOutputBytes` big (download caps, streaming).',
		categories: ['text-to-video'],
		kind: 'inference',
		base_price_usd: 0.001,
		price_unit: 'output',
		tags: ['test'],
		input_schema: schema({ prompt: prompt('Anything.', 200) }, []),
		sim: { output: 'video', large: true },
	},
	{
		model_id: 'runcomfy/test/always-fails',
		display_name: 'Test: Always Fails',
		description: 'Sandbox test model whose runs always end as failed.',
		categories: ['text-to-image'],
		kind: 'inference',
		base_price_usd: 0.001,
		price_unit: 'output',
		tags: ['test'],
		input_schema: schema({ prompt: prompt('Anything.', 200) }, ['prompt']),
		sim: { output: 'images', fails: 'Model run failed: CUDA error: an illegal memory access was encountered' },
	},
	{
		model_id: 'runcomfy/test/mixed-hosts',
		display_name: 'Test: Mixed Hosts',
		description: 'Sandbox test model whose output also carries a thumbnail URL on a host outside the allow-list.',
		categories: ['text-to-image'],
		kind: 'inference',
		base_price_usd: 0.001,
		price_unit: 'output',
		tags: ['test'],
		input_schema: schema({ prompt: prompt('Anything.', 200) }, ['prompt']),
		sim: { output: 'images', foreignThumbnail: true },
	},
];

const DEFAULT_EXT = { images: 'png', image: 'png', video: 'mp4', videos: 'mp4', audio: 'wav', string: 'png' };

function entry(def) {
	const { sim, ...pub } = def;
	const props = pub.input_schema.properties;
	const model = {
		model_id: pub.model_id,
		display_name: pub.display_name,
		description: pub.description,
		publisher: pub.model_id.split('/')[0],
		categories: pub.categories,
		kind: pub.kind,
		...(pub.tags ? { tags: pub.tags } : {}),
		...(pub.model_url !== null && !pub.model_id.startsWith('runcomfy/test/')
			? { model_url: pub.model_url || `https://www.runcomfy.com/models/${pub.model_id.split('/').slice(0, -1).join('/') || pub.model_id}` }
			: {}),
		base_price_usd: pub.base_price_usd,
		price_unit: pub.price_unit,
		...(pub.pricing_note ? { pricing_note: pub.pricing_note } : {}),
		supported_batch_size: pub.supported_batch_size || [1],
		inputs: Object.keys(props),
		required_inputs: [...pub.input_schema.required],
		input_schema: pub.input_schema,
	};
	return { model, sim: { ext: DEFAULT_EXT[sim.output], ...sim } };
}

/** Generated models for big-catalog benchmarks: `synthetic/<family>/v<n>/<category>`. */
function generated(count) {
	const byCategory = {};
	for (const def of CURATED) {
		if (def.model_id.startsWith('runcomfy/test/')) continue;
		const cat = def.categories[0];
		(byCategory[cat] = byCategory[cat] || []).push(def);
	}
	const out = [];
	const publishers = ['synthetic-labs', 'pixelforge', 'motionworks', 'soundsmith', 'dreamcraft', 'vectorize'];
	for (let i = 0; i < count; i++) {
		const cat = CATEGORIES[i % CATEGORIES.length];
		const templates = byCategory[cat];
		const template = templates[Math.floor(i / CATEGORIES.length) % templates.length];
		const n = String(i + 1).padStart(4, '0');
		const publisher = publishers[i % publishers.length];
		out.push(
			entry({
				...template,
				model_id: `${publisher}/gen-${n}/v${(i % 3) + 1}/${cat}`,
				display_name: `${publisher.replace(/-/g, ' ')} Gen ${n} (${cat})`,
				description: `Synthetic ${cat} model number ${n}, generated for catalog-size tests. ${template.description}`,
				tags: ['synthetic'],
				model_url: null,
				pricing_note: undefined,
				base_price_usd: Math.round((0.001 + (i % 50) * 0.002) * 1000) / 1000,
			}),
		);
	}
	return out;
}

/** Builds the catalog: `{ list, byId, sims, categories }`. */
function buildCatalog(extraModels = 0) {
	const items = [...CURATED.map(entry), ...generated(Math.max(0, Math.floor(extraModels || 0)))];
	const byId = new Map();
	const sims = new Map();
	for (const { model, sim } of items) {
		byId.set(model.model_id, model);
		sims.set(model.model_id, sim);
	}
	const list = items.map((i) => i.model);
	const categories = [...new Set(list.flatMap((m) => m.categories))].sort();
	return { list, byId, sims, categories };
}

/** Stable ids tests and helpers rely on. */
const STABLE_MODELS = {
	textToImage: 'blackforestlabs/flux-2/flash/text-to-image',
	lora: 'blackforestlabs/flux-1/dev/lora/text-to-image',
	imageToVideo: 'kling/kling-2-1/pro/image-to-video',
	videoToVideo: 'runway/gen4-aleph/video-to-video',
	audioToAudio: 'stability/stable-audio-2-5/audio-to-audio',
	imageEditPlural: 'google/nano-banana/edit',
	largeOutput: 'runcomfy/test/large-output',
	alwaysFails: 'runcomfy/test/always-fails',
	mixedHosts: 'runcomfy/test/mixed-hosts',
};

module.exports = { CATEGORIES, buildCatalog, STABLE_MODELS };
