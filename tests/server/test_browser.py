"""The web page in a real headless Chromium (Debian's, driven by Selenium with Debian's chromedriver).

Types a query, clicks "similar papers" on a hit, uploads a real JATS file, pages, and saves screenshots
(desktop and phone width) to test-artifacts/ (git-ignored) and pytest's tmp dir. Nothing is downloaded:
the driver path is given, so Selenium Manager never runs.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from sciembed.server import create_app

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="needs Debian's chromium and chromium-driver (make test installs them)",
)


@pytest.fixture()
def server(collection):
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(collection), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started and time.time() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture()
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1100,1300"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def wait_for(predicate, timeout: float = 15.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting for the page")


def test_search_similar_upload_and_screenshot(server, browser, shared_data, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    status = browser.find_element(By.ID, "status")
    wait_for(lambda: "papers" in browser.find_element(By.ID, "stats").text)

    browser.find_element(By.ID, "query").send_keys("exoplanet atmosphere transmission spectroscopy")
    browser.find_element(By.ID, "search-button").click()
    wait_for(lambda: " ms" in status.text)
    hits = browser.find_elements(By.CSS_SELECTOR, "#hits li.hit")
    assert len(hits) == 10 and "1–10" in status.text
    first = hits[0]
    assert first.find_element(By.CLASS_NAME, "title").text and first.find_element(By.CLASS_NAME, "snippet").text
    assert "score" in first.find_element(By.CLASS_NAME, "meta").text
    query_ids = [h.get_attribute("data-id") for h in hits]

    browser.find_element(By.ID, "next").click()
    wait_for(lambda: "11–20" in status.text)
    assert browser.find_elements(By.CSS_SELECTOR, "#hits li.hit")[0].get_attribute("data-id") not in query_ids
    browser.find_element(By.ID, "prev").click()
    wait_for(lambda: "1–10" in status.text)

    liked = browser.find_elements(By.CSS_SELECTOR, "#hits li.hit")[0]
    liked_id = liked.get_attribute("data-id")
    liked_title = liked.find_element(By.CLASS_NAME, "title").text
    assert browser.find_element(By.ID, "query").get_attribute("value")  # the text query stays while it is shown
    liked.find_element(By.CLASS_NAME, "similar").click()
    wait_for(lambda: f"papers like “{liked_title}”" in status.text)  # named by its title, not its id
    assert liked_id not in status.text.split(":")[0]
    assert browser.find_element(By.ID, "query").get_attribute("value") == ""  # no stale query text
    similar = [h.get_attribute("data-id") for h in browser.find_elements(By.CSS_SELECTOR, "#hits li.hit")]
    assert len(similar) == 10 and liked_id not in similar

    picker = browser.find_element(By.ID, "file")
    assert ".pdf" in picker.get_attribute("accept").split(",")  # the picker offers PDFs

    upload = shared_data / "formats" / "jats" / "elife06003.xml"
    browser.find_element(By.ID, "file").send_keys(str(upload))
    wait_for(lambda: "uploaded" in status.text)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hits li.hit")) == 10
    assert float(status.get_attribute("data-took")) > 0

    browser.execute_script("window.scrollTo(0, 0)")
    ARTIFACTS.mkdir(exist_ok=True)
    shots = [ARTIFACTS / "search-page.png", tmp_path / "search-page.png"]
    for shot in shots:
        assert browser.save_screenshot(str(shot))
    browser.set_window_size(390, 844)  # a phone-width screen: nothing may overflow sideways
    width = browser.execute_script("return window.innerWidth")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    assert browser.save_screenshot(str(ARTIFACTS / "search-page-phone.png"))
    assert all(s.stat().st_size > 10_000 for s in shots)
