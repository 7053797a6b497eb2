"""The routes, thin: the models list and the chat completion that applies an update.

Middleware, outermost first: the Host check (loopback servers only), CORS
(only with ``--allow-origin``: it must answer a browser's preflight, which
carries no key, and put its headers on a 401 too), the API key (when set).
"""

from __future__ import annotations

import contextlib

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .answer import UNSEEN_HEADER, answer
from .errors import HANDLERS
from .guard import LoopbackHostOnly, RequireBearer, read_body
from .model import ModelHolder
from .schema import model_card, model_list, parse_apply_request
from .settings import Settings


async def list_models(request: Request) -> Response:
    return JSONResponse(model_list(request.app.state.holder.name))


async def get_model(request: Request) -> Response:
    """Any model name is served by the loaded model, so any name is found."""
    return JSONResponse(model_card(request.path_params["model"]))


async def chat_completions(request: Request) -> Response:
    raw = await read_body(request, request.app.state.settings.max_body_bytes)
    return await answer(request, request.app.state.holder, parse_apply_request(raw))


def middleware(settings: Settings) -> list[Middleware]:
    stack = []
    if settings.loopback:
        stack.append(Middleware(LoopbackHostOnly))
    if settings.allow_origin:
        # The origin is trusted by name, so the headers its client sends (OpenAI's SDKs add their own) are too.
        stack.append(Middleware(CORSMiddleware, allow_origins=[settings.allow_origin], allow_methods=["GET", "POST"],
                                allow_headers=["*"], expose_headers=[UNSEEN_HEADER], max_age=600))
    if settings.api_key:
        stack.append(Middleware(RequireBearer, key=settings.api_key))
    return stack


def create_app(settings: Settings, holder: ModelHolder) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        holder.close()

    app = Starlette(routes=[Route("/v1/models", list_models, methods=["GET"]),
                            Route("/v1/models/{model:path}", get_model, methods=["GET"]),
                            Route("/v1/chat/completions", chat_completions, methods=["POST"])],
                    middleware=middleware(settings), exception_handlers=HANDLERS, lifespan=lifespan)
    app.state.settings = settings
    app.state.holder = holder
    return app
