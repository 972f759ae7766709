"""The model client: requests to an OpenAI-compatible endpoint (``llm``, ``llm_http``), what a reply
holds (``turns``), defaults for local endpoints (``local_defaults``, ``endpoints``), the ``--debug``
request log (``debuglog``) and the start-up collector pause (``gcpause``).
"""
