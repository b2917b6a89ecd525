'use strict';
/** ComfyUI API-format graphs (node id -> {class_type, inputs, _meta}) used by the seeded deployments. */

const textToImage = () => ({
	3: {
		class_type: 'KSampler',
		inputs: {
			seed: 156680208700286,
			steps: 20,
			cfg: 8,
			sampler_name: 'euler',
			scheduler: 'normal',
			denoise: 1,
			model: ['4', 0],
			positive: ['6', 0],
			negative: ['7', 0],
			latent_image: ['5', 0],
		},
		_meta: { title: 'KSampler' },
	},
	4: { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' }, _meta: { title: 'Load Checkpoint' } },
	5: { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 }, _meta: { title: 'Empty Latent Image' } },
	6: {
		class_type: 'CLIPTextEncode',
		inputs: { text: 'beautiful scenery nature glass bottle landscape, purple galaxy bottle,', clip: ['4', 1] },
		_meta: { title: 'CLIP Text Encode (Prompt)' },
	},
	7: { class_type: 'CLIPTextEncode', inputs: { text: 'text, watermark', clip: ['4', 1] }, _meta: { title: 'CLIP Text Encode (Prompt)' } },
	8: { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] }, _meta: { title: 'VAE Decode' } },
	9: { class_type: 'SaveImage', inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] }, _meta: { title: 'Save Image' } },
});

const imageToImage = () => ({
	3: {
		class_type: 'KSampler',
		inputs: {
			seed: 42,
			steps: 24,
			cfg: 3.5,
			sampler_name: 'euler',
			scheduler: 'simple',
			denoise: 0.65,
			model: ['4', 0],
			positive: ['6', 0],
			negative: ['7', 0],
			latent_image: ['11', 0],
		},
		_meta: { title: 'KSampler' },
	},
	4: { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'flux1-dev-fp8.safetensors' }, _meta: { title: 'Load Checkpoint' } },
	6: {
		class_type: 'CLIPTextEncode',
		inputs: { text: 'a watercolor painting of the same scene, soft light', clip: ['4', 1] },
		_meta: { title: 'CLIP Text Encode (Prompt)' },
	},
	7: { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, low quality', clip: ['4', 1] }, _meta: { title: 'CLIP Text Encode (Negative)' } },
	8: { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] }, _meta: { title: 'VAE Decode' } },
	9: { class_type: 'SaveImage', inputs: { filename_prefix: 'img2img', images: ['8', 0] }, _meta: { title: 'Save Image' } },
	10: { class_type: 'LoadImage', inputs: { image: 'example.png', upload: 'image' }, _meta: { title: 'Load Image' } },
	11: { class_type: 'VAEEncode', inputs: { pixels: ['10', 0], vae: ['4', 2] }, _meta: { title: 'VAE Encode' } },
	12: {
		class_type: 'WD14Tagger|pysssss',
		inputs: { model: 'wd-v1-4-moat-tagger-v2', threshold: 0.35, character_threshold: 0.85, image: ['10', 0] },
		_meta: { title: 'WD14 Tagger' },
	},
	13: { class_type: 'ShowText|pysssss', inputs: { text: ['12', 0] }, _meta: { title: 'Show Text' } },
});

const imageToVideo = () => ({
	37: { class_type: 'UNETLoader', inputs: { unet_name: 'wan2.2_i2v_high_noise_14B_fp8.safetensors', weight_dtype: 'default' }, _meta: { title: 'Load Diffusion Model' } },
	38: { class_type: 'CLIPLoader', inputs: { clip_name: 'umt5_xxl_fp8_e4m3fn_scaled.safetensors', type: 'wan' }, _meta: { title: 'Load CLIP' } },
	39: { class_type: 'VAELoader', inputs: { vae_name: 'wan_2.1_vae.safetensors' }, _meta: { title: 'Load VAE' } },
	52: { class_type: 'LoadImage', inputs: { image: 'start_frame.png', upload: 'image' }, _meta: { title: 'Start Frame' } },
	6: { class_type: 'CLIPTextEncode', inputs: { text: 'the camera slowly pushes in, leaves sway in the wind', clip: ['38', 0] }, _meta: { title: 'CLIP Text Encode (Positive Prompt)' } },
	7: { class_type: 'CLIPTextEncode', inputs: { text: 'static, blurry, distorted', clip: ['38', 0] }, _meta: { title: 'CLIP Text Encode (Negative Prompt)' } },
	50: {
		class_type: 'WanImageToVideo',
		inputs: { width: 832, height: 480, length: 81, batch_size: 1, positive: ['6', 0], negative: ['7', 0], vae: ['39', 0], start_image: ['52', 0] },
		_meta: { title: 'WanImageToVideo' },
	},
	3: {
		class_type: 'KSampler',
		inputs: { seed: 8675309, steps: 20, cfg: 5, sampler_name: 'uni_pc', scheduler: 'simple', denoise: 1, model: ['37', 0], positive: ['50', 0], negative: ['50', 1], latent_image: ['50', 2] },
		_meta: { title: 'KSampler' },
	},
	8: { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['39', 0] }, _meta: { title: 'VAE Decode' } },
	58: {
		class_type: 'VHS_VideoCombine',
		inputs: { frame_rate: 16, loop_count: 0, filename_prefix: 'wan_i2v', format: 'video/h264-mp4', pingpong: false, save_output: true, images: ['8', 0] },
		_meta: { title: 'Video Combine' },
	},
});

/** Inputs that take a file (URL or data: URI) by node class. */
const FILE_INPUTS = {
	LoadImage: ['image'],
	LoadImageMask: ['image'],
	VHS_LoadVideo: ['video'],
	LoadVideo: ['file'],
	LoadAudio: ['audio'],
};

module.exports = { textToImage, imageToImage, imageToVideo, FILE_INPUTS };
