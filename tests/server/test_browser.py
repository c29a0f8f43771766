"""The web page in a real headless Chromium (Debian's, driven by Selenium with Debian's chromedriver).

Types a query, clicks "similar papers" on a hit, uploads a real JATS file, pages, adds papers through the
"add a paper" control (pasted JSON and a file, with an API key), and saves screenshots
(desktop and phone width) to test-artifacts/ (git-ignored) and pytest's tmp dir. Nothing is downloaded:
the driver path is given, so Selenium Manager never runs.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from fakes.tei import tei
from sciembed.server import ServerSettings, create_app

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
KEY = "page-test-key"

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="needs Debian's chromium and chromium-driver (make test installs them)",
)


@pytest.fixture()
def server(collection):
    yield from serve(create_app(collection))


@pytest.fixture()
def keyed_server(collection):
    """The page of a server whose writes take an API key."""
    yield from serve(create_app(collection, ServerSettings(api_key=KEY)))


def serve(app):
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
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

    assert not browser.find_element(By.ID, "add-paper").is_displayed()  # this server takes no writes
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


def test_add_a_paper_by_pasting_json_or_uploading_a_file(keyed_server, browser, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get(keyed_server + "/")
    wait_for(lambda: "papers" in browser.find_element(By.ID, "stats").text)
    control = browser.find_element(By.ID, "add-paper")
    assert not control.is_displayed()  # writes need the key: hidden until it is given
    browser.find_element(By.CSS_SELECTOR, "#filters summary").click()
    browser.find_element(By.ID, "api-key").send_keys(KEY)
    wait_for(control.is_displayed)
    control.find_element(By.TAG_NAME, "summary").click()
    status = browser.find_element(By.ID, "add-status")

    paper = {"title": "Transmission spectra of a hot exoplanet atmosphere", "abstract": "We observe an exoplanet "
             "atmosphere during transit.", "sections": [{"heading": "Methods", "text": "exoplanet spectra " * 40}]}
    browser.find_element(By.ID, "add-json").send_keys(json.dumps(paper))
    browser.find_element(By.ID, "add-id").send_keys("lab-2024-01")
    browser.find_element(By.ID, "add-button").click()
    wait_for(lambda: "Added" in status.text)
    assert "lab-2024-01 “Transmission spectra of a hot exoplanet atmosphere”" in status.text
    assert browser.find_element(By.ID, "add-json").get_attribute("value") == ""  # ready for the next one

    data = tei("Exoplanet atmospheres from transit spectra", "10.1000/exo.7")
    (tmp_path / "P24-1001.tei.xml").write_text(data)
    browser.find_element(By.ID, "add-file").send_keys(str(tmp_path / "P24-1001.tei.xml"))
    browser.find_element(By.ID, "add-button").click()
    wait_for(lambda: "P24-1001" in status.text)  # the file name's stem is the id
    assert "“Exoplanet atmospheres from transit spectra”" in status.text

    browser.find_element(By.ID, "add-json").send_keys('{"id": "broken", "abstract": "no title"}')
    browser.find_element(By.ID, "add-button").click()
    wait_for(lambda: "rejected" in status.text or "Error" in status.text)
    assert status.get_attribute("class") == "error" and "missing_title" in status.text
    browser.find_element(By.ID, "add-json").send_keys("{not json")
    browser.find_element(By.ID, "add-button").click()
    wait_for(lambda: status.text.startswith("Error: the pasted text is not JSON"))

    browser.find_element(By.ID, "query").send_keys("exoplanet atmospheres from transit spectra")
    browser.find_element(By.ID, "search-button").click()
    wait_for(lambda: " ms" in browser.find_element(By.ID, "status").text)
    found = [h.get_attribute("data-id") for h in browser.find_elements(By.CSS_SELECTOR, "#hits li.hit")]
    assert "P24-1001" in found  # searchable at once
    browser.execute_script("window.scrollTo(0, 0)")
    ARTIFACTS.mkdir(exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "search-page-add-paper.png"))
    browser.get(keyed_server + "/papers/lab-2024-01")  # the pasted paper is in the collection under its id
    assert "Transmission spectra of a hot exoplanet atmosphere" in browser.find_element(By.TAG_NAME, "body").text
