"""``GET /health``, the web page at ``/`` (and its files under ``/static``) and Swagger UI at
``/docs`` (its files under ``/docs-assets``): everything served from this machine.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from api import schemas

try:
    from swagger_ui_bundle import swagger_ui_path
except ImportError:  # the docs page then loads Swagger UI from FastAPI's default CDN
    swagger_ui_path = None

STATIC = Path(__file__).parent / "static"
#: The page loads nothing from elsewhere; this header makes the browser hold it to that.
PAGE_CSP = "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'"

health_router = APIRouter(tags=["service"])
router = APIRouter(include_in_schema=False)


@health_router.get("/health", response_model=schemas.Health)
async def health(request: Request):
    """Liveness, the version, and the parts this build has (every build has the reader and the
    validator; clients that check the two fields keep working)."""
    return {"status": "ok", "version": request.app.version, "reader": True, "validator": True}


@router.get("/")
async def page():
    return FileResponse(STATIC / "index.html", headers={"Content-Security-Policy": PAGE_CSP})


@router.get("/docs")
async def docs(request: Request) -> HTMLResponse:
    assets = (
        {
            "swagger_js_url": "/docs-assets/swagger-ui-bundle.js",
            "swagger_css_url": "/docs-assets/swagger-ui.css",
            "swagger_favicon_url": "/docs-assets/favicon-32x32.png",
        }
        if swagger_ui_path
        else {}
    )
    return get_swagger_ui_html(
        openapi_url="/openapi.json", title=f"{request.app.title} — API", **assets
    )


def mount_files(app: FastAPI) -> None:
    """The page's files at ``/static`` and Swagger UI's at ``/docs-assets``."""
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if swagger_ui_path:
        app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")
