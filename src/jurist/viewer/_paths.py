"""Where the viewer lives in an application: its pages under /view, their JSON twins under
/view/api, its assets under /view/static."""

PREFIX = "/view"
API = f"{PREFIX}/api"
STATIC = f"{PREFIX}/static"
