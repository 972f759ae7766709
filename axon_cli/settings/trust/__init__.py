"""Folder trust: nothing a project ships may widen what axon does until the user has trusted it.

``widening`` is the one list of what widens; ``store`` the record in the user's state dir;
``folder`` the per-folder view (``FolderTrust``) every loader of a project file filters through.
"""

from axon_cli.settings.trust.folder import Assessment, FolderTrust, Pending
from axon_cli.settings.trust.items import TrustEverything, TrustNothing, TrustView, WideningItem, file_item
from axon_cli.settings.trust.widening import CONFIG, MCP_JSON, PERMISSIONS, allow_item

__all__ = ["WideningItem", "TrustView", "TrustEverything", "TrustNothing", "file_item", "FolderTrust",
           "Assessment", "Pending", "allow_item", "CONFIG", "PERMISSIONS", "MCP_JSON"]
