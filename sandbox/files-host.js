'use strict';
/** Routes of the file host port (urls.files and urls.foreignFiles): downloads; signed PUTs live in datasets.js. */
const { serveFile } = require('./files');

const routes = [
	{
		method: 'GET',
		path: '/files/*path',
		api: 'files',
		raw: true,
		handler: (sb, rq) => {
			rq.req.resume();
			return { handled: true, status: serveFile(sb, rq.req, rq.res, rq.params.path.split('/')) };
		},
	},
];

module.exports = { routes };
